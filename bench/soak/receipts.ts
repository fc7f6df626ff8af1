import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';

/** A receipt of a webhook-id received before: when the first came, and this one (epoch ms). */
export interface DuplicateReceipt {
  firstAt: number;
  at: number;
}

/**
 * What the soak's inbox received, indexed as it arrives (the inbox is scanned once): the first
 * receipt of each `webhook-id` and each receipt after it, the event each id carried, and when each
 * event first arrived.
 */
export class Receipts {
  private readonly firstOfWebhookId = new Map<string, number>();
  readonly duplicateReceipts: DuplicateReceipt[] = [];
  private readonly webhookIdOfEvent = new Map<string, string>();
  readonly firstReceipt = new Map<string, number>();
  /** Events that arrived under two different webhook-ids (each delivery has exactly one: expected 0). */
  mismatchedIds = 0;
  total = 0;

  private readonly receiver: WebhookReceiver;
  private readonly inbox: string;

  constructor(receiver: WebhookReceiver, inbox: string) {
    this.receiver = receiver;
    this.inbox = inbox;
  }

  scan(): this {
    const requests = this.receiver.received(this.inbox);
    for (; this.total < requests.length; this.total += 1) {
      const request = requests[this.total]!;
      const webhookId = String(request.headers['webhook-id']);
      const eventId = (JSON.parse(request.body) as { id: string }).id;
      const at = request.receivedAt.getTime();
      const firstAt = this.firstOfWebhookId.get(webhookId);
      if (firstAt === undefined) this.firstOfWebhookId.set(webhookId, at);
      else this.duplicateReceipts.push({ firstAt, at });
      const known = this.webhookIdOfEvent.get(eventId);
      if (known === undefined) {
        this.webhookIdOfEvent.set(eventId, webhookId);
        this.firstReceipt.set(eventId, at);
      } else if (known !== webhookId) this.mismatchedIds += 1;
    }
    return this;
  }

  /** Distinct webhook-ids received. */
  get delivered(): number {
    return this.firstOfWebhookId.size;
  }

  /** Receipts beyond the first of each webhook-id (at-least-once delivery allows them). */
  get duplicates(): number {
    return this.duplicateReceipts.length;
  }

  /** The events of `eventIds` that never arrived. */
  missing(eventIds: Iterable<string>): string[] {
    return [...eventIds].filter((id) => !this.firstReceipt.has(id));
  }
}
