import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { useSuite } from '../support/suite.js';
import { chatKey, linkedPage } from '../chat/chat-fixtures.js';

const { db, shop, receiver, chat, request } = useSuite({
  api: true,
  shop: true,
  receiver: true,
  worker: true,
  relay: { retryDelaysMs: [300, 300, 300] },
  chat: true,
});

const flowOn = (pageId: string, eventType: 'message.received' | 'message.sent', inbox: string) =>
  shop.newFlow({ name: eventType, eventType, pageId, url: receiver.url(inbox), state: 'on' });

describe('from a customer in the chat platform to the flow, and back', () => {
  it('delivers a signed message.received, takes the answer through the API, and delivers message.sent', async () => {
    // The shop's page, linked to its page on the platform, with a flow on each message event.
    const { page, accessToken } = chat.platform.createPage({ name: 'Demo Fashion' });
    const { pageId } = await linkedPage(db.app, shop.shopId, { platformPageId: page.id, accessToken });
    const received = await flowOn(pageId, 'message.received', 'chat-received');
    const sent = await flowOn(pageId, 'message.sent', 'chat-sent');
    const key = await chatKey(db.app, shop, [pageId]);

    // A customer writes in the platform, which signs its webhook to Shopflow.
    const customer = chat.platform.createCustomer(page.id, { name: 'Lan Nguyen' });
    chat.platform.customerWrites(customer.psid, { text: 'Áo này còn size M không shop?' });
    const [inbound] = await receiver.waitFor('chat-received', 1);
    expect(new Webhook(received.secret).verify(inbound!.body, inbound!.headers as Record<string, string>)).toBeTruthy();
    const event = JSON.parse(inbound!.body) as { type: string; data: { conversationId: string; text: string; pageId: string } };
    expect(event).toMatchObject({
      type: 'message.received',
      shop: { id: shop.shopId },
      data: { pageId, direction: 'in', text: 'Áo này còn size M không shop?', sender: { type: 'customer', name: 'Lan Nguyen' } },
    });

    // The integrator answers through the API; the platform delivers it to the customer.
    const answer = await request('POST', `/conversations/${event.data.conversationId}/messages`, {
      key,
      body: { text: 'Dạ còn ạ, size M còn 3 cái.' },
    });
    expect(answer.status, await answer.clone().text()).toBe(201);
    const message = (await answer.json()) as { id: string };
    expect(chat.platform.sentMessages(page.id)).toMatchObject([{ psid: customer.psid, text: 'Dạ còn ạ, size M còn 3 cái.' }]);

    const [outbound] = await receiver.waitFor('chat-sent', 1);
    expect(new Webhook(sent.secret).verify(outbound!.body, outbound!.headers as Record<string, string>)).toBeTruthy();
    expect(JSON.parse(outbound!.body)).toMatchObject({
      type: 'message.sent',
      data: { id: message.id, conversationId: event.data.conversationId, direction: 'out', sender: { type: 'page', isIntegration: true } },
    });
    // Each flow had only its own event.
    expect(receiver.received('chat-received')).toHaveLength(1);
  });
});
