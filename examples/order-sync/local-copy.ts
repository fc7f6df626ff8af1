import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import initSqlJs, { type Database } from 'sql.js';
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
  create table if not exists orders (id text primary key, updated_at text not null, deleted_at text, row text not null);
  create table if not exists seen_deliveries (webhook_id text primary key);
  create table if not exists marks (resource text primary key, mark text not null);`;

/**
 * The local copy in SQLite (sql.js: SQLite compiled to WebAssembly, no native build), in memory and
 * written whole to `file` (a temporary file renamed over it, so a kill leaves the old or the new
 * state) when a delivery is handled or a sync pass has stored its mark: the changes and the record
 * of them are written together.
 */
export class LocalCopy {
  private constructor(
    private readonly db: Database,
    private readonly file: string,
  ) {}

  static async open(file: string): Promise<LocalCopy> {
    const SQL = await initSqlJs();
    const db = existsSync(file) ? new SQL.Database(readFileSync(file)) : new SQL.Database();
    db.run(SCHEMA);
    return new LocalCopy(db, file);
  }

  /** Keeps the newer version: rows arrive unordered from webhooks and sync. */
  upsert(order: Order | OrderRow): void {
    const row = asRow(order);
    this.db.run(
      `insert into orders (id, updated_at, deleted_at, row) values (?, ?, ?, ?)
       on conflict (id) do update set updated_at = excluded.updated_at, deleted_at = excluded.deleted_at, row = excluded.row
       where excluded.updated_at >= orders.updated_at`,
      [row.id, row.updatedAt, row.deletedAt, JSON.stringify(row)],
    );
  }

  /** The live orders by id (`GET /orders` sorts by updatedAt to the microsecond, which the millisecond times it returns cannot repeat). */
  orders(): OrderRow[] {
    const [result] = this.db.exec('select row from orders where deleted_at is null order by id');
    return (result?.values ?? []).map(([row]) => JSON.parse(String(row)) as OrderRow);
  }

  readonly seen: SeenStore = {
    has: (webhookId) => this.db.exec('select 1 from seen_deliveries where webhook_id = ?', [webhookId]).length > 0,
    add: (webhookId) => {
      this.db.run('insert or ignore into seen_deliveries (webhook_id) values (?)', [webhookId]);
      this.persist();
    },
  };

  readonly marks: MarkStore = {
    get: (resource) => {
      const [result] = this.db.exec('select mark from marks where resource = ?', [resource]);
      return result ? String(result.values[0]![0]) : null;
    },
    set: (resource, mark) => {
      this.db.run('insert into marks (resource, mark) values (?, ?) on conflict (resource) do update set mark = excluded.mark', [
        resource,
        mark,
      ]);
      this.persist();
    },
  };

  private persist(): void {
    writeFileSync(`${this.file}.tmp`, this.db.export());
    renameSync(`${this.file}.tmp`, this.file);
  }
}
