import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';

/**
 * What the soak's inbox received, indexed as it arrives (the inbox is scanned once): receipts per
 * `webhook-id`, the event each id carried, and when each event first arrived.
 */
export class Receipts {
  private readonly perWebhookId = new Map<string, number>();
  private readonly webhookIdOfEvent = new Map<string, string>();
  readonly firstReceipt = new Map<string, number>();
  /** Events that arrived under two different webhook-ids (each delivery has exactly one: expected 0). */
  mismatchedIds = 0;
  total = 0;

  constructor(
    private readonly receiver: WebhookReceiver,
    private readonly inbox: string,
  ) {}

  scan(): this {
    const requests = this.receiver.received(this.inbox);
    for (; this.total < requests.length; this.total += 1) {
      const request = requests[this.total]!;
      const webhookId = String(request.headers['webhook-id']);
      const eventId = (JSON.parse(request.body) as { id: string }).id;
      this.perWebhookId.set(webhookId, (this.perWebhookId.get(webhookId) ?? 0) + 1);
      const known = this.webhookIdOfEvent.get(eventId);
      if (known === undefined) {
        this.webhookIdOfEvent.set(eventId, webhookId);
        this.firstReceipt.set(eventId, request.receivedAt.getTime());
      } else if (known !== webhookId) this.mismatchedIds += 1;
    }
    return this;
  }

  /** Distinct webhook-ids received. */
  get delivered(): number {
    return this.perWebhookId.size;
  }

  /** Receipts beyond the first of each webhook-id (at-least-once delivery allows them). */
  get duplicates(): number {
    return this.total - this.perWebhookId.size;
  }

  /** The events of `eventIds` that never arrived. */
  missing(eventIds: Iterable<string>): string[] {
    return [...eventIds].filter((id) => !this.firstReceipt.has(id));
  }
}
