import postgres from 'postgres';
import { isConnectionLoss, type Sql } from '../../db/client.js';
import {
  claimQueuedEvents,
  completeQueuedEvents,
  recordMatchingFailure,
  releaseQueuedEvents,
  type QueuedEvent,
} from '../../domain/events/index.js';
import { eventMatch, matchEvent, recordSkippedRuns, type EventMatch } from '../../domain/flows/index.js';
import { enterShop } from '../../domain/kernel/index.js';
import { startDelivery, type DeliveryStarter } from './delivery-starter.js';
import { ShopPace } from './shop-pace.js';
import { inSpan, TRACE_ATTRIBUTES, traceContextOf } from '../../telemetry/tracing.js';

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
   * Not for a backlog beside other shops (ShopPace.isBacklogBesideOthers): its deliveries start through
   * the task queue, where the stand-alone workers take them in turn by shop, and their retries stay
   * there (decision 0266).
   */
  eagerStart?: boolean;
  /**
   * How many more deliveries this process can run now. The relay claims no more events than that, so
   * under load the backlog waits in the outbox instead of spilling out of eager start into Temporal's
   * task matching (a second, costlier path through the server and the workers).
   */
  room?: () => number;
  /** Each shop's pace while other shops have events too; 10 events a second, in bursts of 10, by default. */
  pace?: ShopPace;
}

/** How long the relay waits for room before it looks again. */
const ROOM_RECHECK_MS = 5;
/**
 * Batches a relay has in hand at once: an event queued while a batch reads, matches or starts is
 * claimed at once in a batch of its own, not after that batch (another shop's costly matching or
 * burst of starts holds no one's events back).
 */
const BATCHES_IN_FLIGHT = 4;
/** How much the batch window grows back after a batch whose every start ran in this process. */
const WINDOW_STEP = 10;

/**
 * Moves events from the outbox to Temporal, one batch at a time:
 *
 * 1. claims queued events in a statement of its own (claimQueuedEvents: shared equally by the shops
 *    with queued events, so one shop's backlog holds another's first attempts back by one batch at
 *    most; `FOR UPDATE SKIP LOCKED` and a lease, so several relays share the work), each shop within
 *    its pace while other shops have events too (ShopPace: one shop's burst can neither saturate the
 *    machine under the others nor fill a batch they wait behind);
 * 2. reads each event and the flows listening to it, in one short read-only transaction per shop;
 * 3. matches each shop's events one after the other outside any transaction, in slices, the shops
 *    at once and each on its own: no shop's events wait for another shop's read or matching
 *    (conditions are bounded: flow-conditions.ts CONDITION_BUDGET);
 * 4. starts, as each event is matched, one delivery workflow per matching flow, id
 *    `delivery:<flowId>:<eventId>` ("already started" counts as done): eagerly on this process's
 *    worker, but a backlog's beside other shops through the task queue (its deliveries and their
 *    retries run on the stand-alone workers, not beside every shop's first attempts here);
 * 5. completes the events whose deliveries all started, with their skipped runs in the shop log, in
 *    one transaction. An event whose start failed is released to the next batch; one whose matching
 *    failed is tried again later, and set aside after MATCHING_ATTEMPTS failures, so it never holds
 *    the queue. No database connection is held while conditions run or workflows start.
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
  private readonly pace: ShopPace;
  /** Events claimed whose deliveries have not started yet (their batches are still in hand). */
  private inHand = 0;

  private readonly options: RelayOptions;

  constructor(options: RelayOptions) {
    this.options = options;
    this.pace = options.pace ?? new ShopPace();
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

  /** Finishes the batches in hand and stops listening; calling it again is harmless. */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.();
  }

  /**
   * How many events the next batch claims: the batch size, within the window and the room of this
   * process's worker, less the events in hand (claimed, their deliveries not started yet).
   */
  claimLimit(): number {
    return Math.max(0, Math.min(this.window, this.options.room?.() ?? this.batchSize) - this.inHand);
  }

  /**
   * Relays one batch of at most `limit` events (the claim limit by default); returns how many it
   * claimed. Throws after completing what it could when a start failed (those events are released).
   */
  async relayBatch(limit = this.claimLimit()): Promise<number> {
    const claimed = await this.claim(limit);
    if (claimed.length > 0) await this.relayClaimed(claimed);
    return claimed.length;
  }

  /** Claims at most `limit` events, each shop within its pace; they count as in hand until their deliveries start. */
  private async claim(limit: number): Promise<QueuedEvent[]> {
    const claimed = await claimQueuedEvents(this.options.sql, limit, this.pace.allowances());
    this.pace.took(claimed);
    this.inHand += claimed.length;
    return claimed;
  }

  /** Reads, matches and starts the claimed events, then completes them; throws after completing what it could when a start failed. */
  private async relayClaimed(claimed: QueuedEvent[]): Promise<void> {
    try {
      await this.startClaimed(claimed);
    } finally {
      this.inHand -= claimed.length;
    }
  }

  private async startClaimed(claimed: QueuedEvent[]): Promise<void> {
    const batch: BatchOutcome = { completed: [], failedStarts: [], unread: [], spilled: false };
    // Each shop's events on their own, the shops at once: no shop's events wait for another shop's
    // read (a product of 2,048 variants takes a hundred milliseconds to read on a busy machine),
    // matching or starts.
    await Promise.all([...byShop(claimed)].map(([shopId, events]) => this.relayShop(shopId, events, batch)));
    if (this.options.eagerStart)
      this.window = batch.spilled ? Math.max(1, Math.floor(this.window / 2)) : Math.min(this.batchSize, this.window + WINDOW_STEP);
    // The skipped runs are logged in the events' order, whichever started first.
    const order = new Map(claimed.map((event, index) => [event.eventId, index]));
    await this.complete(batch.completed.sort((a, b) => order.get(a.event.eventId)! - order.get(b.event.eventId)!));
    // A shop whose read failed (a database error: its read is tried again whole) has its events back at once.
    if (batch.unread.length > 0) await releaseQueuedEvents(this.options.sql, batch.unread).catch(() => undefined);
    if (batch.readFailure !== undefined) throw batch.readFailure;
    if (batch.failedStarts.length > 0) {
      await releaseQueuedEvents(this.options.sql, batch.failedStarts);
      throw new Error(`${batch.failedStarts.length} of ${claimed.length} events could not start their deliveries`);
    }
  }

  /**
   * One shop's events of a batch: read in a transaction of the shop's, matched one after the other
   * (in slices: matchEvent, so the shops take turns on the event loop), each one's deliveries started
   * as soon as it is matched. A failed matching is recorded before the next event: its write can
   * fail, and awaited here it is never a rejection left unhandled while matching goes on.
   */
  private async relayShop(shopId: string, events: QueuedEvent[], batch: BatchOutcome): Promise<void> {
    let reads: Map<string, EventMatch | undefined | Error>;
    try {
      reads = await this.readShopEvents(shopId, events);
    } catch (error) {
      batch.unread.push(...events.map((event) => event.eventId));
      batch.readFailure ??= error;
      return;
    }
    const starts: Promise<void>[] = [];
    for (const event of events) {
      const read = reads.get(event.eventId);
      let outcome: MatchOutcome;
      try {
        if (read instanceof Error) throw read;
        outcome = read ? await matchEvent(read) : { requests: [], skipped: [] };
      } catch (error) {
        await this.matchingFailed(event, error as Error);
        continue;
      }
      starts.push(this.startEvent(event, read, outcome, batch));
    }
    await Promise.all(starts);
  }

  /** Starts one matched event's deliveries; never throws: a failed start counts the event among the batch's to release. */
  private async startEvent(event: QueuedEvent, match: EventMatch | undefined, outcome: MatchOutcome, batch: BatchOutcome): Promise<void> {
    const eagerStart = (this.options.eagerStart ?? false) && !this.pace.isBacklogBesideOthers(event);
    try {
      const results = await Promise.all(
        outcome.requests.map((request) =>
          // One span per delivery started, in the trace of the request that wrote the event.
          inSpan(
            `relay ${request.eventType}`,
            {
              [TRACE_ATTRIBUTES.shopId]: request.shopId,
              [TRACE_ATTRIBUTES.flowId]: request.flowId,
              [TRACE_ATTRIBUTES.eventId]: request.eventId,
              [TRACE_ATTRIBUTES.eventType]: request.eventType,
            },
            () =>
              startDelivery(
                this.options.deliveries,
                this.options.retryDelaysMs ? { ...request, retryDelaysMs: this.options.retryDelaysMs } : request,
                { eagerStart },
              ),
            traceContextOf(match?.event.traceParent),
          ),
        ),
      );
      batch.spilled ||= eagerStart && results.includes('started');
      batch.completed.push({ event, match, skipped: outcome.skipped });
    } catch (error) {
      batch.failedStarts.push(event.eventId);
      this.options.log?.('delivery start failed; the event goes back to the queue', {
        eventId: event.eventId,
        error: (error as Error).message,
      });
    }
  }

  /**
   * One shop's claimed events, each with its listening flows, read in one read-only transaction under
   * that shop (row-level security). A read that fails for one event alone is that event's error; a
   * database error fails the shop's read.
   */
  private async readShopEvents(shopId: string, events: QueuedEvent[]): Promise<Map<string, EventMatch | undefined | Error>> {
    return this.options.sql.begin('read only', (tx) =>
      enterShop(tx, shopId, async (shopTx) => {
        const read = new Map<string, EventMatch | undefined | Error>();
        for (const event of events) {
          try {
            read.set(event.eventId, await eventMatch(shopTx, event.eventId));
          } catch (error) {
            // A database error ends the transaction: the shop's events are released and read again.
            if (isDatabaseFailure(error)) throw error;
            read.set(event.eventId, error as Error);
          }
        }
        return read;
      }),
    ) as Promise<Map<string, EventMatch | undefined | Error>>;
  }

  /** The events whose deliveries all started leave the queue, their skipped runs written to each shop's log. */
  private async complete(completed: Completed[]): Promise<void> {
    if (completed.length === 0) return;
    await this.options.sql.begin(async (tx) => {
      for (const { event, match, skipped } of completed)
        if (match && skipped.length > 0) await enterShop(tx, event.shopId, (shopTx) => recordSkippedRuns(shopTx, match, skipped));
      await completeQueuedEvents(
        tx,
        completed.map(({ event }) => event.eventId),
      );
    });
  }

  private async matchingFailed(event: QueuedEvent, error: Error): Promise<void> {
    const reason = `${error.name}: ${error.message}`.slice(0, 1_000);
    const setAside = await recordMatchingFailure(this.options.sql, event, reason);
    this.options.log?.(
      setAside ? 'event set aside: matching it to flows kept failing' : 'matching an event to flows failed; it is tried again',
      {
        eventId: event.eventId,
        shopId: event.shopId,
        failures: event.failures + 1,
        reason,
      },
    );
  }

  private async run(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let batchEnded: (() => void) | undefined;
    while (this.running) {
      let claimed = 0;
      const limit = inFlight.size < BATCHES_IN_FLIGHT ? this.claimLimit() : 0;
      if (limit > 0) {
        this.notified = false;
        try {
          const events = await this.claim(limit);
          claimed = events.length;
          if (claimed > 0) {
            const batch: Promise<void> = this.relayClaimed(events)
              .catch((error: unknown) => this.options.log?.('relay batch failed; retrying', { error: (error as Error).message }))
              .finally(() => {
                inFlight.delete(batch);
                batchEnded?.();
              });
            inFlight.add(batch);
          }
        } catch (error) {
          this.options.log?.('relay batch failed; retrying', { error: (error as Error).message });
        }
      }
      if (!this.running || claimed > 0) continue;
      // No room: look again when a batch ends, or shortly (a NOTIFY meanwhile changes nothing). Nothing
      // queued (or only a paced shop's): wait for a NOTIFY, the paced shop's next token, or the poll.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, limit === 0 ? ROOM_RECHECK_MS : this.pace.nextTokenInMs() || this.pollIntervalMs);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        batchEnded = limit === 0 ? done : undefined;
        this.wakeUp = limit === 0 ? undefined : done;
        if (limit > 0 && this.notified) done();
      });
      batchEnded = undefined;
    }
    await Promise.all(inFlight);
  }
}

/** What matching an event gave: the deliveries to start, and the flows whose condition did not hold. */
type MatchOutcome = Awaited<ReturnType<typeof matchEvent>>;

/**
 * What a batch came to, filled in shop by shop: the events whose deliveries all started, those whose
 * start or read failed (released once the batch ends), the first read's failure, and whether an
 * eager start left this process (spilled into task matching: its worker had no free slot).
 */
interface BatchOutcome {
  completed: Completed[];
  failedStarts: string[];
  unread: string[];
  readFailure?: unknown;
  spilled: boolean;
}

/** An event whose deliveries all started, with the runs its conditions skipped. */
interface Completed {
  event: QueuedEvent;
  match: EventMatch | undefined;
  skipped: EventMatch['flows'];
}

/** A failure of the database (any PostgreSQL error ends the transaction) or of the connection to it, not of the event: counted against the event, one would set it aside. */
function isDatabaseFailure(error: unknown): boolean {
  return error instanceof postgres.PostgresError || !(error instanceof Error) || isConnectionLoss(error);
}

/** The batch's events by shop, each shop's in the batch's order, the shops in order of their first event. */
function byShop(events: QueuedEvent[]): Map<string, QueuedEvent[]> {
  return Map.groupBy(events, (event) => event.shopId);
}
