import { DatabaseSync } from 'node:sqlite';
import type { EventOf, MarkStore, RowOf, SeenStore } from '@shopflow/client';

export type OrderRow = RowOf<'/orders'>;
/** An order as its events carry it (the `GET /orders/{id}` detail). */
type Order = EventOf<'order.created'>['data'];
/** The named fields of `T`, without the index signature a schema open to new fields gives it. */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };
/** Fields of the order detail (webhook `data`) that list rows do not have; the compiler checks the list is complete. */
const DETAIL_ONLY = ['lines', 'payments', 'shippingAddress', 'creditApplied', 'exchangeReturn'] as const satisfies readonly Exclude<
  KnownKeys<Order>,
  KnownKeys<OrderRow>
>[];
const _detailOnlyIsComplete: [Exclude<Exclude<KnownKeys<Order>, KnownKeys<OrderRow>>, (typeof DETAIL_ONLY)[number]>] extends [never]
  ? true
  : false = true;

/** An order as a list row: the detail of a webhook without its detail-only fields. */
export function asRow(order: Order | OrderRow): OrderRow {
  return Object.fromEntries(Object.entries(order).filter(([field]) => !(DETAIL_ONLY as readonly string[]).includes(field))) as OrderRow;
}

const SCHEMA = `
  pragma journal_mode = wal;
  create table if not exists orders (id text primary key, updated_at text not null, deleted_at text, row text not null);
  create table if not exists seen_deliveries (webhook_id text primary key);
  create table if not exists marks (resource text primary key, mark text not null);`;

/**
 * The local copy in a SQLite file (Node's own `node:sqlite`), each statement committed as it runs. A
 * kill between storing an order and noting its delivery (or a sync pass's mark) costs one repeated
 * upsert when the delivery or page comes again, and the newer version still wins.
 */
export class LocalCopy {
  private readonly db: DatabaseSync;

  private constructor(db: DatabaseSync) {
    this.db = db;
  }

  static open(file: string): LocalCopy {
    const db = new DatabaseSync(file);
    db.exec(SCHEMA);
    return new LocalCopy(db);
  }

  /** Keeps the newer version: rows arrive unordered from webhooks and sync. */
  upsert(order: Order | OrderRow): void {
    const row = asRow(order);
    this.db
      .prepare(
        `insert into orders (id, updated_at, deleted_at, row) values (?, ?, ?, ?)
         on conflict (id) do update set updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, row = excluded.row
         where excluded.updated_at >= orders.updated_at`,
      )
      .run(row.id, row.updatedAt, row.deletedAt, JSON.stringify(row));
  }

  /** The live orders by id (`GET /orders` sorts by updatedAt to the microsecond, which the millisecond times it returns cannot repeat). */
  orders(): OrderRow[] {
    const rows = this.db.prepare('select row from orders where deleted_at is null order by id').all();
    return rows.map(({ row }) => JSON.parse(String(row)) as OrderRow);
  }

  readonly seen: SeenStore = {
    has: (webhookId) => this.db.prepare('select 1 from seen_deliveries where webhook_id = ?').get(webhookId) !== undefined,
    add: (webhookId) => void this.db.prepare('insert or ignore into seen_deliveries (webhook_id) values (?)').run(webhookId),
  };

  readonly marks: MarkStore = {
    get: (resource) => {
      const found = this.db.prepare('select mark from marks where resource = ?').get(resource);
      return found ? String(found.mark) : null;
    },
    set: (resource, mark) =>
      void this.db
        .prepare('insert into marks (resource, mark) values (?, ?) on conflict (resource) do update set mark = excluded.mark')
        .run(resource, mark),
  };

  close(): void {
    this.db.close();
  }
}
