/** What the neighbours benchmark (neighbours.ts) measured of each phase, and how it prints it. */

import type { DeliveryParts } from '../delivery-parts.js';
import { rankOf } from '../quantile.js';

/** Shop B's events a second, in both phases (each a delivery to its healthy receiver). */
export const RATE = 5;
/** Shop B's pushes a second, in both phases: under the shipment counter's 60 a minute per shop. */
export const PUSH_RATE = 1;
/**
 * How long each phase lasts by default (BENCH_NEIGHBOURS_SECONDS sets another). A p99 needs a hundred
 * values at least: B pushes once a second, so at 100 s its pushes' p99 is the second slowest of 100.
 * At 30 s it was the slowest of thirty, and the one push sent as A's noise began could decide it.
 */
export const PHASE_SECONDS = 100;

export interface Phase {
  p50Ms: number;
  p99Ms: number;
  /** B's p99 over the events committed after the phase's first two seconds, where every noise begins. */
  p99AfterOnsetMs: number;
  /** Where B's time goes, medians: commit to its workflow's start (the relay), start to receipt (the engine and worker). */
  toStartP50Ms: number;
  startToReceiptP50Ms: number;
  /**
   * B's slowest percent (three at least): when it was committed (ms into the phase), its total, and
   * its parts from the workflow's history: commit to start (the relay), start to its first task's
   * start (a worker taking it: nothing where the relay's own worker took it at once, eager start),
   * on to the send's beginning (the workflow's code, then its local activity's turn), then to
   * receipt (the signing secrets read, the POST).
   */
  slowParts: ({ atMs: number; totalMs: number } & DeliveryParts)[];
  committed: number;
  lost: number;
  duplicates: number;
  /** Each process's event loop in the phase: its p99 and longest delay (prom-client's, ms). */
  loopDelays: Record<string, { p99Ms: number; maxMs: number }>;
  /** B's pushes, `POST /shipments` to its 201: p50 and p99, and the answers that were not 201. */
  pushP50Ms: number;
  pushP99Ms: number;
  /** The pushes answered 201, whose times the p50 and p99 are of. */
  pushesAnswered: number;
  pushesFailed: Record<string, number>;
  /**
   * B's three slowest pushes: how long each took, when it was sent (ms into the phase), and its
   * parts: to its workflow's start, on to the carrier's receipt of the order (its first task's
   * beginning), then the rest (the carrier's answer, the records, the 201).
   */
  slowestPushes: { ms: number; atMs: number; toStartMs: number; toCarrierMs: number; restMs: number }[];
}

export interface NeighboursResults {
  quiet: Phase;
  noisy: Phase;
  p50Ratio: number;
  p99Ratio: number;
  pushP99Ratio: number;
  /** A's noise as it went: what its process sent (bench/noisy-shop.ts), then what the platform did with it. */
  shopA: {
    costlyMatched: number;
    failingAttempts: number;
    setAside: number;
    bigProducts: number;
    burstWrittenMs: number;
    loginAnswers: Record<string, number>;
    /** The status A's recovery batch was answered with (its admin logging in from her usual browser during the flood). */
    recoveryAnswer: number;
  };
  /** Shop B's owner logging in from her usual browser every two seconds during the flood: answers by status. */
  memberLogins: Record<string, number>;
}

/** Which value a p99 of `count` values is, slowest first (bench/quantile.ts): `the 2nd slowest of 100`. */
function p99Rank(count: number): string {
  const rank = count + 1 - rankOf(count, 0.99);
  const suffix = { one: 'st', two: 'nd', few: 'rd', other: 'th', zero: 'th', many: 'th' }[ordinals.select(rank)];
  return rank === 1 ? `the slowest of ${count}` : `the ${rank}${suffix} slowest of ${count}`;
}
const ordinals = new Intl.PluralRules('en', { type: 'ordinal' });

export function printNeighbours(results: NeighboursResults): void {
  const row = (name: string, phase: Phase) =>
    `${name.padEnd(34)} p50 ${phase.p50Ms.toFixed(0).padStart(5)} ms   p99 ${phase.p99Ms.toFixed(0).padStart(5)} ms (${p99Rank(phase.committed - phase.lost)})   committed ${phase.committed}   lost ${phase.lost}   sent twice ${phase.duplicates}` +
    `   (p50 to the workflow's start ${phase.toStartP50Ms.toFixed(0)} ms, then to receipt ${phase.startToReceiptP50Ms.toFixed(0)} ms)`;
  console.log(row(`shop B alone, ${RATE} events/s`, results.quiet));
  console.log(row('shop B beside noisy shop A', results.noisy));
  const loops = (phase: Phase) =>
    Object.entries(phase.loopDelays)
      .map(([name, delay]) => `${name} ${delay.p99Ms.toFixed(0)}/${delay.maxMs.toFixed(0)}`)
      .join(', ');
  console.log(`event loop delay p99/max ms, alone: ${loops(results.quiet)}; beside A: ${loops(results.noisy)}`);
  const slowest = (phase: Phase) =>
    phase.slowParts
      .map(
        (part) =>
          `${part.totalMs} = ${part.toStartMs} + ${part.toTaskMs} + ${part.toSendMs} + ${part.sendMs} ms at ${(part.atMs / 1_000).toFixed(1)} s`,
      )
      .join(', ');
  const parts = 'total = to start + to its first task + to the send + the send, committed at';
  console.log(`shop B's slowest alone (${parts}): ${slowest(results.quiet)}`);
  console.log(`shop B's slowest beside A (${parts}): ${slowest(results.noisy)}`);
  console.log(
    `shop B noisy ÷ quiet: p50 ${results.p50Ratio.toFixed(2)}x, p99 ${results.p99Ratio.toFixed(2)}x (goal: p99 within 2x, 0 lost, 0 sent twice) — ` +
      (results.p99Ratio <= 2 && results.noisy.lost === 0 && results.noisy.duplicates === 0 ? 'met' : 'missed'),
  );
  console.log(
    `shop B after the noise's first 2 s: p99 ${results.noisy.p99AfterOnsetMs.toFixed(0)} ms, ` +
      `${(results.noisy.p99AfterOnsetMs / results.quiet.p99AfterOnsetMs).toFixed(2)}x its quiet phase's after the same 2 s`,
  );
  const pushes = (name: string, phase: Phase) =>
    `${name.padEnd(34)} p50 ${phase.pushP50Ms.toFixed(0).padStart(5)} ms   p99 ${phase.pushP99Ms.toFixed(0).padStart(5)} ms (${p99Rank(phase.pushesAnswered)})   not 201: ${JSON.stringify(phase.pushesFailed)}`;
  console.log(pushes(`shop B's pushes alone, ${PUSH_RATE}/s`, results.quiet));
  console.log(pushes("shop B's pushes beside noisy shop A", results.noisy));
  for (const [name, phase] of [
    ['alone', results.quiet],
    ['beside A', results.noisy],
  ] as const)
    console.log(
      `shop B's slowest pushes ${name} (total = to the workflow's start + to the carrier + the rest, sent at): ` +
        phase.slowestPushes
          .map(
            (push) =>
              `${push.ms.toFixed(0)} = ${push.toStartMs.toFixed(0)} + ${push.toCarrierMs.toFixed(0)} + ${push.restMs.toFixed(0)} ms ` +
              `(${(push.atMs / 1_000).toFixed(1)} s)`,
          )
          .join(', '),
    );
  const pushesDone = Object.keys(results.noisy.pushesFailed).length === 0 && Object.keys(results.quiet.pushesFailed).length === 0;
  console.log(
    `shop B's pushes noisy ÷ quiet: p99 ${results.pushP99Ratio.toFixed(2)}x (goal: within 2x, every push 201) — ` +
      (results.pushP99Ratio <= 2 && pushesDone ? 'met' : 'missed'),
  );
  const { shopA } = results;
  console.log(
    `shop A sent: ${shopA.bigProducts} big products, its 2,000 failing events all written ${(shopA.burstWrittenMs / 1_000).toFixed(1)} s in, ` +
      `a login flood answered ${JSON.stringify(shopA.loginAnswers)}`,
  );
  console.log(
    `shop A served: ${shopA.costlyMatched} runs of its costly flows matched (none holds), ${shopA.failingAttempts} attempts at its failing receiver, ` +
      `${shopA.setAside} event set aside, its recovery batch answered ${shopA.recoveryAnswer}`,
  );
  console.log(`shop B's owner logging in from her usual browser during the flood: ${JSON.stringify(results.memberLogins)}`);
}
