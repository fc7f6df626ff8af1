import type { Sql } from '../../db/client.js';
import { takeQueuedEvents } from '../../domain/events/index.js';
import { requestsForEvent } from '../../domain/flows/index.js';
import { inShop } from '../../domain/kernel/index.js';
import { startDelivery, type DeliveryStarter, type UnsealedDeliveryInput } from './delivery-starter.js';

export interface RelayOptions {
  sql: Sql;
  /** Where deliveries start; with `eagerStart`, its client must share a worker's connection (below). */
  deliveries: DeliveryStarter;
  batchSize?: number;
  /** Fallback when a NOTIFY is missed (for example while the connection was re-established). */
  pollIntervalMs?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
  /** Waits between attempts of the deliveries it starts; the production schedule when absent (tests shorten it). */
  retryDelaysMs?: number[];
  /**
   * Eager workflow start: the starter's client is a client on the `NativeConnection` of a worker of `taskQueue`
   * in this process, which then runs each delivery's first task without a trip through task matching.
   */
  eagerStart?: boolean;
  /**
   * How many more deliveries this process can run now. The relay claims no more events than that, so
   * under load the backlog waits in the outbox instead of spilling out of eager start into Temporal's
   * task matching (a second, costlier path through the server and the workers).
   */
  room?: () => number;
}

/** How long the relay waits for room before it looks again. */
const ROOM_RECHECK_MS = 5;
/** How much the batch window grows back after a batch whose every start ran in this process. */
const WINDOW_STEP = 10;

/**
 * Moves events from the outbox to Temporal: takes queued events off the queue (`FOR UPDATE SKIP
 * LOCKED`, so several relays share the work), starts one delivery workflow per matching flow with
 * the id `delivery:<flowId>:<eventId>` (a second start is "already started", which counts as done),
 * and commits only after every start is confirmed: a failed start puts the batch back. Each batch
 * is shared equally by the shops with queued events (takeQueuedEvents), so one shop's backlog holds
 * another shop's first attempts back by one batch at most: they start in the next batch relayed.
 */
export class OutboxRelay {
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private running = false;
  private wakeUp: (() => void) | undefined;
  /** A NOTIFY arrived while a batch was in hand: run another batch at once instead of waiting. */
  private notified = false;
  private loop: Promise<void> | undefined;
  /**
   * Events claimed per batch under eager start: halved when a start found this process's worker full
   * (the server queued its task instead), grown back while every start runs here.
   */
  private window: number;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly options: RelayOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.window = this.batchSize;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
  }

  async start(): Promise<void> {
    this.running = true;
    const subscription = await this.options.sql.listen('shopflow_events', () => {
      this.notified = true;
      this.wakeUp?.();
    });
    this.unlisten = subscription.unlisten;
    this.loop = this.run();
  }

  /** Finishes the batch in hand and stops listening; calling it again is harmless. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.();
  }

  /** How many events the next batch claims: the batch size, within the window and the room of this process's worker. */
  claimLimit(): number {
    return Math.max(0, Math.min(this.window, this.options.room?.() ?? this.batchSize));
  }

  /** Relays one batch of at most `limit` events (the claim limit by default); returns how many it took off the queue. */
  async relayBatch(limit = this.claimLimit()): Promise<number> {
    return this.options.sql.begin(async (tx) => {
      const queued = await takeQueuedEvents(tx, limit);
      // Reads one event at a time: each sets its own shop for row-level security on this connection.
      const deliveries: UnsealedDeliveryInput[] = [];
      for (const item of queued) {
        const requests = await inShop(tx, item.shopId, (shopTx) => requestsForEvent(shopTx, item.eventId));
        deliveries.push(
          ...requests.map((request) => (this.options.retryDelaysMs ? { ...request, retryDelaysMs: this.options.retryDelaysMs } : request)),
        );
      }
      const started = await Promise.all(
        deliveries.map((input) => startDelivery(this.options.deliveries, input, { eagerStart: this.options.eagerStart ?? false })),
      );
      if (this.options.eagerStart) {
        const spilled = started.includes('started');
        this.window = spilled ? Math.max(1, Math.floor(this.window / 2)) : Math.min(this.batchSize, this.window + WINDOW_STEP);
      }
      // Committing takes the events off the queue, now that every delivery has started.
      return queued.length;
    }) as Promise<number>;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let relayed = 0;
      const limit = this.claimLimit();
      if (limit > 0) {
        this.notified = false;
        try {
          relayed = await this.relayBatch(limit);
        } catch (error) {
          this.options.log?.('relay batch failed; retrying', { error: (error as Error).message });
        }
      }
      // No room: look again shortly (a NOTIFY meanwhile changes nothing). Nothing queued: wait for one.
      if (limit === 0 && this.running) await new Promise((resolve) => setTimeout(resolve, ROOM_RECHECK_MS));
      else if (relayed === 0 && !this.notified && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.pollIntervalMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }
}
