import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { recordWebhookMessage } from '../../domain/chat/index.js';
import { writeEvent } from '../../domain/events/index.js';
import type { FlowInput } from '../../domain/flows/flows.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { useSuite } from '../support/suite.js';
import { linkedPage } from './chat-fixtures.js';

const { db, receiver, shop } = useSuite({ receiver: true, worker: true, relay: true, shop: true });

const flowOn = (pageId: string, inbox: string, extra: Partial<FlowInput> = {}) =>
  shop.newFlow({ name: 'Chat flow', eventType: 'message.received', pageId, url: receiver.url(inbox), state: 'on', ...extra });

describe('message events through the relay', () => {
  it('deliver message.received only to the flows listening on its page whose account reads conversations', async () => {
    const [pageA, pageB] = [await linkedPage(db.app, shop.shopId), await linkedPage(db.app, shop.shopId)];
    const [onA, onB, lacking] = [randomUUID(), randomUUID(), randomUUID()];
    await flowOn(pageA.pageId, onA);
    await flowOn(pageB.pageId, onB);
    await flowOn(pageA.pageId, lacking, { permissions: ['social.pages.read'] });

    const { message } = await withShop(db.app, shop.shopId, (tx) =>
      recordWebhookMessage(tx, shop.shopId, {
        direction: 'in',
        pageId: pageA.pageId,
        customer: { platformCustomerId: 'psid-relay', name: 'Lan' },
        platformMessageId: `m_${randomUUID()}`,
        text: 'còn size M không?',
        attachments: [],
        sentAt: new Date(),
      }),
    );
    // Not addressed to any page: no flow of any page gets it.
    await withShop(db.app, shop.shopId, (tx) =>
      writeEvent(tx, {
        shopId: shop.shopId,
        type: 'message.received',
        resourceId: randomUUID(),
        data: { id: randomUUID(), text: 'no page' },
      }),
    );

    const [delivered] = await receiver.waitFor(onA, 1);
    expect(JSON.parse(delivered!.body)).toMatchObject({ type: 'message.received', shop: { id: shop.shopId }, data: message });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received(onA)).toHaveLength(1);
    expect(receiver.received(onB)).toHaveLength(0);
    expect(receiver.received(lacking)).toHaveLength(0);
  });
});
