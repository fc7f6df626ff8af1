import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { devReady, endDevRuns, interrupt, startDev, type DevRun } from '../support/dev-runs.js';
import { testOutboundPolicy } from '../support/receiver.js';

// Two `npm run dev` of this clone overlapping, as a developer starts a second one: they share
// PostgreSQL and Temporal (this suite's), and every server the second opens (API, web app, receiver,
// carrier and chat simulators) takes the next free port. Preferred ports of their own keep both runs
// clear of a developer's stack on the defaults, and below Linux's ephemeral range (32768 up), where a
// server of another test listening on port 0 could take one between the choice and the listen; carrier
// B prefers the port after carrier A's, as the defaults 3601 and 3602 do.
const PREFERRED = {
  PORT: '24400',
  WEB_PORT: '24410',
  WEBHOOK_RECEIVER_PORT: '24420',
  CARRIER_A_PORT: '24430',
  CARRIER_B_PORT: '24431',
  CHAT_PLATFORM_PORT: '24440',
};
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

/** Waits for the run's summary, then reads each server's address from it. */
async function ready(run: DevRun): Promise<Record<Server, URL>> {
  const output = await devReady(run);
  return Object.fromEntries(Object.entries(SERVERS).map(([server, { line }]) => [server, new URL(line.exec(output)![1]!)])) as Record<
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

// A run a failed test left: Ctrl-C, then whatever is still there.
afterAll(endDevRuns, 120_000);

describe('two npm run dev at once', () => {
  it('starts the second beside the first, every port of it the next free one, and each stops only its own', async () => {
    const first = startDev(PREFERRED);
    const firstAt = await ready(first);
    const second = startDev(PREFERRED);
    const secondAt = await ready(second);

    // It says which ports it took instead, and serves on them: the simulators too.
    expect(second.output()).toMatch(/busy, so the next free port taken: .*carrier A 24430 → .*carrier B 24431 → .*chat platform 24440 → /);
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
