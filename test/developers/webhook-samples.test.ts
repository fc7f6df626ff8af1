import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { venvPython } from '../../scripts/bootstrap/python-tools.js';
import { rotateSigningSecret } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import type { ReceivedRequest } from '../../simulators/webhook-receiver.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * The developer site's three receivers (TypeScript, Python, Go, each with its language's Standard
 * Webhooks library) on a real delivery: a customer created through the API, delivered by the worker
 * after the flow's secret was rotated, so it carries two signatures. Each receiver verifies it with
 * either secret, handles it once, and refuses it tampered.
 */
const { db, shop, receiver, request } = useSuite({ api: true, shop: true, receiver: true, worker: true, relay: true });
const run = promisify(execFile);
const inbox = 'developer-samples';
const started: ChildProcess[] = [];
let delivery: ReceivedRequest;
let secrets: { old: string; new: string };
let goReceiver = '';

interface Receiver {
  url: string;
  /** Every line it printed so far. */
  lines: string[];
}

/** Starts a sample receiver with `secret` on a free port; resolves once it says where it listens. */
function startReceiver(command: string, args: string[], secret: string): Promise<Receiver> {
  const child = spawn(command, args, { env: { ...process.env, PORT: '0', WEBHOOK_SECRET: secret } });
  started.push(child);
  const lines: string[] = [];
  // Its log (Python's server logs each request), told only if it stops.
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}\n${log}`)));
    // Whole lines only: a chunk may end inside one.
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const text = partial + chunk.toString();
      partial = text.slice(text.lastIndexOf('\n') + 1);
      lines.push(
        ...text
          .slice(0, text.length - partial.length)
          .split('\n')
          .filter(Boolean),
      );
      const port = lines.map((line) => /^listening on (\d+)$/.exec(line)?.[1]).find(Boolean);
      if (port) resolve({ url: `http://127.0.0.1:${port}/`, lines });
    });
  });
}

const SAMPLES: Record<string, (secret: string) => Promise<Receiver>> = {
  TypeScript: (secret) => startReceiver(process.execPath, ['examples/developer-site/webhook-receiver.ts'], secret),
  Python: (secret) => startReceiver(venvPython, ['examples/developer-site/webhook_receiver.py'], secret),
  Go: (secret) => startReceiver(goReceiver, [], secret),
};

/** The delivery as the worker sent it, to `url`: its Standard Webhooks headers, and `body` (by default its own). */
const replay = (url: string, body = delivery.body) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    },
    body,
  });

beforeAll(async () => {
  const build = join(temporaryDir('webhook-receiver-go'), 'webhook-receiver');
  // Built as an integrator builds it: its go.mod and go.sum, the library from the Go module proxy.
  const building = run('go', ['build', '-o', build, '.'], {
    cwd: 'examples/developer-site/go',
    env: { ...process.env, GOTOOLCHAIN: 'local' },
  });
  const { key } = await shop.newKey(['pos.customers.create']);
  const { flowId, secret } = await shop.newFlow({ name: 'Samples', eventType: 'customer.created', url: receiver.url(inbox), state: 'on' });
  const rotated = await withShop(db.app, shop.shopId, (tx) => rotateSigningSecret(tx, flowId, shop.ownerId, testSecretsKey));
  secrets = { old: secret, new: rotated };
  expect((await request('POST', '/customers', { key, body: { name: 'Hoàng Thị Webhook' } })).status).toBe(201);
  delivery = (await receiver.waitFor(inbox, 1))[0]!;
  await building;
  goReceiver = build;
}, 300_000);
afterAll(() => started.forEach((child) => child.kill()));

describe('the webhook receivers of the developer site', () => {
  it.each(Object.keys(SAMPLES))(
    '%s: verifies a real delivery with either secret of a rotation, handles it once, refuses it tampered',
    async (language) => {
      const event = JSON.parse(delivery.body) as { id: string; type: string };
      expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
      for (const secret of [secrets.new, secrets.old]) {
        const sample = await SAMPLES[language]!(secret);
        expect((await replay(sample.url)).status).toBe(204);
        // At least once: the same delivery again is answered, and not handled twice.
        expect((await replay(sample.url)).status).toBe(204);
        expect((await replay(sample.url, delivery.body.replace('Hoàng Thị Webhook', 'Kẻ Giả Mạo'))).status).toBe(400);
        // Its output comes on another channel than its answers: waited for.
        await expect
          .poll(() => sample.lines.filter((line) => !line.startsWith('listening on')))
          .toEqual([`${String(delivery.headers['webhook-id'])} ${event.type} ${event.id}`]);
      }
    },
  );
});
