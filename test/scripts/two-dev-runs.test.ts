import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { outputMatches } from '../../scripts/processes.js';
import { markedProcesses } from '../support/marked-processes.js';
import { testOutboundPolicy } from '../support/receiver.js';

// Two `npm run dev` of this clone overlapping, as a developer starts a second one: they share
// PostgreSQL and Temporal (this suite's), and every server the second opens (API, web app, receiver,
// carrier and chat simulators) takes the next free port. Preferred ports of their own keep both runs
// clear of a developer's stack on the defaults; carrier B prefers the port after carrier A's, as the
// defaults 3601 and 3602 do.
const PREFERRED = {
  PORT: '45400',
  WEB_PORT: '45410',
  WEBHOOK_RECEIVER_PORT: '45420',
  CARRIER_A_PORT: '45430',
  CARRIER_B_PORT: '45431',
  CHAT_PLATFORM_PORT: '45440',
};
const READY = /Ctrl-C stops everything this command started/;
/** The summary's lines naming a server, and how to ask it whether it serves. */
const SERVERS = {
  api: { line: /API base URL\s+(http:\/\/localhost:\d+)/, probe: '/healthz' },
  web: { line: /Admin web app\s+(http:\/\/localhost:\d+)/, probe: '/admin/' },
  receiver: { line: /Webhook receiver\s+(https:\/\/localhost:\d+)/, probe: '/_inbox/probe' },
  carrierA: { line: /Carrier A \(GHN\)\s+(http:\/\/127\.0\.0\.1:\d+)/, probe: '/_control/faults' },
  carrierB: { line: /Carrier B \(GHTK\)\s+(http:\/\/127\.0\.0\.1:\d+)/, probe: '/_control/faults' },
  chat: { line: /Chat platform\s+(http:\/\/127\.0\.0\.1:\d+)/, probe: '/_control' },
};
type Server = keyof typeof SERVERS;

interface DevRun {
  child: ChildProcess;
  mark: string;
  output: () => string;
  exited: Promise<number | string>;
}
const runs: DevRun[] = [];

/** `npm run dev` in its own process group, as a terminal runs it, with a mark every process under it inherits. */
function startDev(): DevRun {
  const mark = `SHOPFLOW_DEV_RUN_MARK=${randomUUID()}`;
  const [name, value] = mark.split('=') as [string, string];
  const child = spawn('npm', ['run', 'dev'], {
    cwd: projectRoot,
    env: { ...process.env, ...PREFERRED, [name]: value },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
  const run = { child, mark, output: () => output, exited };
  runs.push(run);
  return run;
}

/**
 * Ctrl-C: SIGINT to the run's process group. Resolves once every process under it has ended (npm
 * itself ends by the signal; the launcher under it stops its children first), with what is left.
 */
async function interrupt(run: DevRun): Promise<string[]> {
  process.kill(-run.child.pid!, 'SIGINT');
  await run.exited;
  const deadline = Date.now() + 30_000;
  while (markedProcesses(run.mark).size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return [...markedProcesses(run.mark).values()];
}

/** Waits for the run's summary, then reads each server's address from it. */
async function ready(run: DevRun): Promise<Record<Server, URL>> {
  await outputMatches(run.child, READY, 240_000, 'npm run dev').catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${run.output().slice(-3_000)}`);
  });
  return Object.fromEntries(Object.entries(SERVERS).map(([server, { line }]) => [server, new URL(line.exec(run.output())![1]!)])) as Record<
    Server,
    URL
  >;
}

/** The status each server answers at its address (the receiver with the local development certificate). */
async function statuses(addresses: Record<Server, URL>): Promise<Record<Server, number>> {
  const agent = createOutboundAgent(testOutboundPolicy());
  const answers = await Promise.all(
    Object.entries(SERVERS).map(async ([server, { probe }]) => {
      const status = await request(new URL(probe, addresses[server as Server]), { dispatcher: agent }).then(
        async ({ statusCode, body }) => {
          await body.dump();
          return statusCode;
        },
        () => 0,
      );
      return [server, status];
    }),
  );
  await agent.close();
  return Object.fromEntries(answers) as Record<Server, number>;
}

const serving = { api: 200, web: 200, receiver: 200, carrierA: 200, carrierB: 200, chat: 200 };

afterAll(async () => {
  // A run a failed test left: Ctrl-C, then whatever is still there.
  for (const run of runs) {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      await interrupt(run);
    }
    for (const pid of markedProcesses(run.mark).keys()) process.kill(pid, 'SIGKILL');
  }
}, 120_000);

describe('two npm run dev at once', () => {
  it('starts the second beside the first, every port of it the next free one, and each stops only its own', async () => {
    const first = startDev();
    const firstAt = await ready(first);
    const second = startDev();
    const secondAt = await ready(second);

    // It says which ports it took instead, and serves on them: the simulators too.
    expect(second.output()).toMatch(/busy, so the next free port taken: .*carrier A 45430 → .*carrier B 45431 → .*chat platform 45440 → /);
    const ports = [...Object.values(firstAt), ...Object.values(secondAt)].map((url) => url.port);
    expect(new Set(ports).size).toBe(12);
    expect(await statuses(secondAt)).toEqual(serving);
    expect(await statuses(firstAt)).toEqual(serving);

    // Ctrl-C on the second stops what it started, and the first goes on serving.
    expect(await interrupt(second)).toEqual([]);
    expect(second.output()).toContain('✓ stopped every process this command started');
    expect(await statuses(firstAt)).toEqual(serving);

    expect(await interrupt(first)).toEqual([]);
    expect(first.output()).toContain('✓ stopped every process this command started');
  }, 600_000);
});
