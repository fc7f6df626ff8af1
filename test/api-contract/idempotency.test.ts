import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { bearer } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { respondIdempotently, respondIdempotentlyAfter } from '../../api/plugins/idempotency.js';
import { Problem } from '../../domain/kernel/problems.js';
import { writeShopLog } from '../../domain/access/shop-log.js';
import { withShop } from '../../domain/kernel/tenancy.js';

let crashes = 0;
/** Opens the work of the `held` requests: until then the one that claimed its key holds it. */
let openHeld!: () => void;
const held = new Promise<void>((resolve) => (openHeld = resolve));
const { db, api, shop } = useSuite({
  api: {
    routes: (app, db) => {
      // A creation route stand-in: it writes a row through the generic idempotency machinery.
      app
        .withTypeProvider<ZodTypeProvider>()
        .post(
          '/api/open/v1/test/things',
          { schema: { body: z.object({ name: z.string(), outcome: z.enum(['ok', 'conflict', 'crash-once', 'held']).default('ok') }) } },
          (request, reply) =>
            respondIdempotently(db.app, 'https://shopflow.test', request, reply, 201, async (tx) => {
              if (request.body.outcome === 'held') await held;
              const id = randomUUID();
              await writeShopLog(tx, {
                shopId: request.auth.shop.id,
                actorUserId: null,
                action: 'thing.created',
                subjectId: id,
                details: { name: request.body.name },
              });
              if (request.body.outcome === 'conflict') throw new Problem('conflict', 'that thing conflicts');
              if (request.body.outcome === 'crash-once' && crashes++ === 0) throw new Error('database went away');
              return { id, name: request.body.name };
            }),
        );
      // A creation that goes on after a 503 (a shipment push's shape): it leaves what goes on, the retry answers for it.
      app
        .withTypeProvider<ZodTypeProvider>()
        .post('/api/open/v1/test/pushes', { schema: { body: z.object({ name: z.string() }) } }, (request, reply) =>
          respondIdempotentlyAfter(db.app, 'https://shopflow.test', request, reply, 201, async (resumable) => {
            if (resumable.earlier) return { id: resumable.earlier, name: request.body.name };
            const id = randomUUID();
            resumable.leave(id);
            throw new Problem('carrier-unavailable', 'no answer yet; the work goes on');
          }),
        );
      // A route whose response schema drops a field the work returns: the serializer must run with and without a key.
      app.withTypeProvider<ZodTypeProvider>().post(
        '/api/open/v1/test/shaped',
        {
          schema: { body: z.object({ name: z.string() }), response: { 201: z.object({ name: z.string(), tags: z.array(z.string()) }) } },
        },
        (request, reply) =>
          respondIdempotently(db.app, 'https://shopflow.test', request, reply, 201, async () => ({
            internal: 'not in the schema',
            tags: ['a'],
            name: request.body.name,
          })),
      );
    },
  },
  shop: true,
});
let key: string;

beforeAll(async () => {
  key = (await shop.newKey([])).key;
});

const create = (idempotencyKey: string | undefined, body: object, withKey = key) =>
  fetch(`${api.baseUrl}/api/open/v1/test/things`, {
    method: 'POST',
    headers: { ...bearer(withKey), 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });

const thingsNamed = async (name: string) =>
  (await withShop(db.app, shop.shopId, (tx) => tx`select 1 from shop_log where action = 'thing.created' and details->>'name' = ${name}`))
    .length;

describe('Idempotency-Key', () => {
  it('replays the stored response within the window, with Idempotent-Replayed: true', async () => {
    const idempotencyKey = randomUUID();
    const first = await create(idempotencyKey, { name: 'replayed' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await first.json();
    // Same body in another key order is the same request.
    const again = await create(idempotencyKey, { outcome: 'ok', name: 'replayed' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-ratelimit-limit')).toBe('600');
    expect(await again.json()).toEqual(firstBody);
    expect(await thingsNamed('replayed')).toBe(1);
  });

  it("answers with the route's response serializer, with a key, on replay and without a key alike", async () => {
    const shaped = (idempotencyKey: string | undefined) =>
      fetch(`${api.baseUrl}/api/open/v1/test/shaped`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
        body: JSON.stringify({ name: 'shaped' }),
      });
    const expected = '{"name":"shaped","tags":["a"]}';
    const plain = await shaped(undefined);
    expect(plain.status).toBe(201);
    expect(await plain.text()).toBe(expected);
    const idempotencyKey = randomUUID();
    const first = await shaped(idempotencyKey);
    expect(first.status).toBe(201);
    expect(first.headers.get('content-type')).toBe(plain.headers.get('content-type'));
    expect(await first.text()).toBe(expected);
    const replay = await shaped(idempotencyKey);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.status).toBe(201);
    expect(await replay.text()).toBe(expected);
  });

  it('executes exactly one of 20 identical concurrent requests', async () => {
    const idempotencyKey = randomUUID();
    const requests = Array.from({ length: 20 }, () => create(idempotencyKey, { name: 'concurrent', outcome: 'held' }));
    // The request that claimed the key holds it in its work until the other 19 are answered, however
    // slowly a loaded machine serves them (a fixed pause in the work could end before they arrive).
    let answered = 0;
    for (const request of requests) void request.then(() => answered++);
    await expect.poll(() => answered, { timeout: 30_000 }).toBe(19);
    openHeld();
    const responses = await Promise.all(requests);
    const executed = responses.filter((response) => response.status === 201 && !response.headers.get('idempotent-replayed'));
    const inProgress = responses.filter((response) => response.status === 409);
    expect(executed).toHaveLength(1);
    expect(inProgress).toHaveLength(19);
    expect(inProgress[0]!.headers.get('retry-after')).toBe('1');
    await expectProblem(inProgress[0]!, 409, 'idempotency-key-in-progress');
    expect(await thingsNamed('concurrent')).toBe(1);
  });

  it('refuses the same key with a different body with 422 idempotency-key-reused', async () => {
    const idempotencyKey = randomUUID();
    expect((await create(idempotencyKey, { name: 'first body' })).status).toBe(201);
    await expectProblem(await create(idempotencyKey, { name: 'second body' }), 422, 'idempotency-key-reused');
    expect(await thingsNamed('second body')).toBe(0);
  });

  it('keeps keys of different applications apart', async () => {
    const idempotencyKey = randomUUID();
    const otherKey = (await shop.newKey([])).key;
    expect((await create(idempotencyKey, { name: 'per app' })).status).toBe(201);
    const other = await create(idempotencyKey, { name: 'per app' }, otherKey);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  it('stores a refusal (4xx) and replays it, without the write', async () => {
    const idempotencyKey = randomUUID();
    await expectProblem(await create(idempotencyKey, { name: 'refused', outcome: 'conflict' }), 409, 'conflict');
    const replay = await create(idempotencyKey, { name: 'refused', outcome: 'conflict' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await expectProblem(replay, 409, 'conflict');
    expect(await thingsNamed('refused')).toBe(0);
  });

  it('does not store a server error: the retry executes', async () => {
    const idempotencyKey = randomUUID();
    await expectProblem(await create(idempotencyKey, { name: 'crashy', outcome: 'crash-once' }), 500, 'internal-error');
    const retry = await create(idempotencyKey, { name: 'crashy', outcome: 'crash-once' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await thingsNamed('crashy')).toBe(1);
  });

  it('after a 503 whose work goes on, answers that work to the same request, 422 to another body, and afresh after 24 hours', async () => {
    const push = (idempotencyKey: string, name: string) =>
      fetch(`${api.baseUrl}/api/open/v1/test/pushes`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ name }),
      });
    const idempotencyKey = randomUUID();
    await expectProblem(await push(idempotencyKey, 'parcel'), 503, 'carrier-unavailable');
    await expectProblem(await push(idempotencyKey, 'another parcel'), 422, 'idempotency-key-reused');
    const resumed = await push(idempotencyKey, 'parcel');
    expect(resumed.status).toBe(201);
    const { id } = (await resumed.json()) as { id: string };
    const replayed = await push(idempotencyKey, 'parcel');
    expect([replayed.headers.get('idempotent-replayed'), ((await replayed.json()) as { id: string }).id]).toEqual(['true', id]);

    // Past the window the key is new: the earlier work is not answered for any more.
    const later = randomUUID();
    await expectProblem(await push(later, 'parcel'), 503, 'carrier-unavailable');
    const [first] = await withShop(
      db.app,
      shop.shopId,
      (tx) => tx<{ resumeRef: string }[]>`
        update idempotency_keys set created_at = now() - interval '24 hours 1 second' where idempotency_key = ${later} returning resume_ref`,
    );
    await expectProblem(await push(later, 'parcel'), 503, 'carrier-unavailable');
    const afresh = (await (await push(later, 'parcel')).json()) as { id: string };
    expect(afresh.id).not.toBe(first!.resumeRef);
  });

  it('expires after 24 hours', async () => {
    const idempotencyKey = randomUUID();
    expect((await create(idempotencyKey, { name: 'old' })).status).toBe(201);
    await withShop(
      db.app,
      shop.shopId,
      (tx) => tx`update idempotency_keys set created_at = now() - interval '24 hours 1 second' where idempotency_key = ${idempotencyKey}`,
    );
    const later = await create(idempotencyKey, { name: 'old' });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(await thingsNamed('old')).toBe(2);
  });

  it('takes any header value of 1 to 255 bytes (spaces, UTF-8), byte for byte, and says so when it refuses one', async () => {
    // fetch sends each character of a header value as one byte: UTF-8 text goes as its bytes.
    const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const accepted = [
      'has spaces in it',
      utf8('đơn hàng #42 — lần 1'),
      'x'.repeat(255),
      utf8(`${'đ'.repeat(127)}a`),
      '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
    ];
    for (const [index, idempotencyKey] of accepted.entries()) {
      const first = await create(idempotencyKey, { name: `accepted ${index}` });
      expect(first.status, await first.clone().text()).toBe(201);
      const replay = await create(idempotencyKey, { name: `accepted ${index}` });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual(await first.json());
      expect(await thingsNamed(`accepted ${index}`)).toBe(1);
    }
    // The same text in other bytes (é as Latin-1, one byte, not UTF-8's two) is another key.
    expect((await create(utf8('café'), { name: 'café' })).status).toBe(201);
    expect((await create('café', { name: 'café' })).headers.get('idempotent-replayed')).toBeNull();
    expect(await thingsNamed('café')).toBe(2);

    const refused: [string, number][] = [
      ['x'.repeat(256), 256],
      [utf8('đ'.repeat(128)), 256],
      ['', 0],
    ];
    for (const [idempotencyKey, bytes] of refused) {
      const response = await fetch(`${api.baseUrl}/api/open/v1/test/things`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify({ name: 'refused key' }),
      });
      const body = await expectProblem(response, 400, 'validation-failed');
      expect(body.detail).toBe(
        'Idempotency-Key must be 1 to 255 bytes: any text a header carries (letters, digits, punctuation, spaces inside, UTF-8), ' +
          `compared byte for byte; a UUID is recommended (got ${bytes} bytes)`,
      );
      expect(body.errors).toEqual([{ path: 'Idempotency-Key', message: expect.stringContaining('1 to 255 bytes') }]);
    }
    expect(await thingsNamed('refused key')).toBe(0);
  });
});
