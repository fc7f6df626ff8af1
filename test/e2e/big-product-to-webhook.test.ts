import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';

/** A product of 2,000 variants (a 750 kB event) from `POST /products` to a signed delivery, through the outbox, Temporal and the worker. */
const { receiver, shop, request } = useSuite({ api: true, shop: true, receiver: true, worker: true, relay: true });
let key: string;

beforeAll(async () => {
  key = (await shop.newKey(['pos.products.read', 'pos.products.create', 'pos.products.update'])).key;
});

describe('a product of 2,000 variants', () => {
  it('is delivered whole in product.created, signed', async () => {
    const inbox = randomUUID();
    const { secret } = await shop.newFlow({ name: 'Catalog', eventType: 'product.created', url: receiver.url(inbox), state: 'on' });
    const code = `E2E-${randomUUID().slice(0, 8)}`;
    const variants = Array.from({ length: 2_000 }, (_, n) => ({
      code: `${code}-${n}`,
      price: String(100_000 + n),
      attributes: { Size: `S${n % 20}`, Màu: `Màu ${Math.floor(n / 20)}` },
      keywords: ['đặt hàng', 'mua ngay', 'chốt đơn', 'lấy 1', 'ship cod'].map((phrase) => `${code}-${n} ${phrase}`),
    }));
    const response = await request('POST', '/products', { key, body: { code, name: 'Áo thun 20 × 100', variants } });
    expect(response.status, await response.clone().text()).toBe(201);
    const product = (await response.json()) as { id: string };

    const [delivery] = await receiver.waitFor(inbox, 1, 60_000);
    // About 750 kB: over the 512 KiB at which Temporal warns of a large input, well under its 2 MiB limit.
    expect(delivery!.body.length).toBeGreaterThan(512 * 1024);
    expect(new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toBeTruthy();
    const envelope = JSON.parse(delivery!.body) as { type: string; data: { id: string; variants: { code: string }[] } };
    expect(envelope).toMatchObject({ type: 'product.created', data: { id: product.id } });
    expect(envelope.data.variants.map((variant) => variant.code)).toEqual(variants.map((variant) => variant.code));
  });
});
