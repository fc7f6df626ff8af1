import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataDir } from '../../scripts/bootstrap/paths.js';
import type { TemporalEngine } from '../../scripts/bootstrap/temporal-cluster.js';
import type { CallCounts } from './customer-calls.js';
import type { DuplicateReceipt } from './receipts.js';
import type { Component, UnexpectedExit } from './stack.js';

export interface KillRecord {
  component: Component;
  /** Since the first call. */
  atMs: number;
  /** Calls issued when it was killed. */
  afterCalls: number;
  /** Events committed but not yet delivered when it was killed (the backlog `caughtUpAfterMs` includes). */
  backlog: number;
  /** From the SIGKILL to the component ready again (down time included). */
  readyAfterMs: number | null;
  /** From the SIGKILL until every event committed before it had been delivered. */
  caughtUpAfterMs: number | null;
}

export interface SoakReport {
  startedAt: string;
  settings: { events: number; ratePerSecond: number; downSeconds: number; drainSeconds: number; temporal: TemporalEngine };
  calls: Omit<CallCounts, 'lastCreatedAt'>;
  /** Events in the database (`customer.created` of the soak's shop). */
  committed: number;
  /** Distinct webhook-ids at the receiver. */
  delivered: number;
  /** Committed but not delivered within the drain deadline (goal 0); the first few ids. */
  lost: number;
  lostIds: string[];
  /** Where the lost events stand (bench/soak/undelivered.ts): `workflow RUNNING` means late, not gone. */
  undelivered: Record<string, number>;
  /** Receipts beyond the first per webhook-id. */
  duplicates: number;
  /** Those receipts by the kill that caused them (`duplicatesByKill`), or `no kill`. */
  duplicatesByKill: Record<string, number>;
  /** Events received under more than one webhook-id (expected 0). */
  mismatchedWebhookIds: number;
  /** From the last 201 to the last first-receipt; null when not every event arrived. */
  drainMs: number | null;
  /** From the first call to the last first-receipt; null as `drainMs`. */
  totalMs: number | null;
  kills: KillRecord[];
  unexpectedExits: UnexpectedExit[];
}

/**
 * Each duplicate receipt put down to the kill that caused it: the latest kill before it whose
 * component was not yet ready again when the first receipt came. A worker (or a relay's worker)
 * killed after an attempt's POST and before its task's answer; or a server down while attempts ran,
 * their answers refused: either way the task runs again elsewhere and POSTs again. Others: `no kill`.
 */
export function duplicatesByKill(
  duplicates: DuplicateReceipt[],
  kills: Pick<KillRecord, 'component' | 'atMs' | 'readyAfterMs'>[],
  loadStarted: number,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { firstAt, at } of duplicates) {
    const cause = kills.findLast(
      (kill) => loadStarted + kill.atMs <= at && firstAt <= loadStarted + kill.atMs + (kill.readyAfterMs ?? Infinity),
    );
    const name = cause?.component ?? 'no kill';
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`);

export function printReport(report: SoakReport): void {
  const { calls } = report;
  console.log(`
Soak report (${report.settings.events} calls at ${report.settings.ratePerSecond}/s, Temporal ${report.settings.temporal})
  calls          created ${calls.created} (replayed ${calls.replayed}), not created ${calls.notCreated}, failed over ${calls.failedOver}, retried ${calls.retried}
  committed      ${report.committed}
  delivered      ${report.delivered}
  lost           ${report.lost}${
    report.lost > 0
      ? `  (${Object.entries(report.undelivered)
          .map(([where, count]) => `${where}: ${count}`)
          .join(', ')}; ${report.lostIds.slice(0, 3).join(', ')}…)`
      : ''
  }
  duplicates     ${report.duplicates}   (${[
    ...Object.entries(report.duplicatesByKill).map(([kill, count]) => `${kill}: ${count}`),
    `events under two webhook-ids: ${report.mismatchedWebhookIds}`,
  ].join(', ')})
  drain          ${seconds(report.drainMs)} after the last event; ${seconds(report.totalMs)} in all`);
  for (const kill of report.kills) {
    console.log(
      `  kill ${kill.component.padEnd(9)} at ${seconds(kill.atMs).padStart(8)} (after ${kill.afterCalls} calls, backlog ${kill.backlog}): ready again in ${seconds(kill.readyAfterMs)}, caught up in ${seconds(kill.caughtUpAfterMs)}`,
    );
  }
  for (const exit of report.unexpectedExits) console.log(`  unexpected exit: ${exit.name} (code ${exit.code}) at ${seconds(exit.atMs)}`);
}

const soakDir = join(dataDir, 'soak');

/** `.data/soak/<start time>.<extension>`: the report (`json`), the processes' output (`log`). */
export function soakFile(startedAt: Date, extension: string): string {
  mkdirSync(soakDir, { recursive: true });
  return join(soakDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.${extension}`);
}

/** `.data/soak/<start time>.json` and `.data/soak/latest.json`; returns the first. */
export function writeReport(report: SoakReport): string {
  const file = soakFile(new Date(report.startedAt), 'json');
  const json = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(file, json);
  writeFileSync(join(soakDir, 'latest.json'), json);
  return file;
}
