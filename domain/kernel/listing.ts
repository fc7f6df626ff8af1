import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type postgres from 'postgres';
import { canonicalJson } from './canonical-json.js';
import { Problem } from './problems.js';
import type { Tx } from './tenancy.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;
/** Added to the shop's recompute ceiling to make the `updatedSince` safety delay. */
export const SAFETY_MARGIN_SECONDS = 15;
/** The shop's recompute ceiling: its default and its largest value (the `shops.recompute_ceiling_seconds` column's default and check). */
export const DEFAULT_RECOMPUTE_CEILING_SECONDS = 120;
export const MAX_RECOMPUTE_CEILING_SECONDS = 600;
/** The spec's recommended sync overlap: a pass starts this long before its stored mark, more than the longest safety delay. */
export const SYNC_OVERLAP_MINUTES = 15;

/** The shared list parameters (spec, Endpoints), already validated. */
export interface ListQuery {
  limit: number;
  cursor?: string;
  updatedSince?: Date;
  includeDeleted?: boolean;
}

/** Where a page ended: the sort key of its last row, timestamp as PostgreSQL text (microseconds kept). */
export interface Position {
  sortKey: string;
  id: string;
}

/** A row of a whole reference list (`GET /tags`, `GET /staff`, …): returned whole, sorted by name. */
export interface Named {
  id: string;
  name: string;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface CursorBinding {
  secret: string;
  /** Everything a cursor is valid for: the shop, the list, every parameter but the cursor itself. */
  scope: Record<string, unknown>;
}

const sign = (payload: string, secret: string) => createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22);
const digest = (scope: Record<string, unknown>) => createHash('sha256').update(canonicalJson(scope)).digest('base64url').slice(0, 16);

export function encodeCursor(position: Position, binding: CursorBinding): string {
  const payload = Buffer.from(JSON.stringify({ k: position.sortKey, i: position.id, s: digest(binding.scope) })).toString('base64url');
  return `${payload}.${sign(payload, binding.secret)}`;
}

/** The position a cursor stands for; 400 `invalid-cursor` when forged, damaged or used with other parameters. */
export function decodeCursor(cursor: string, binding: CursorBinding): Position {
  const invalid = (why: string) => new Problem('invalid-cursor', `the cursor ${why}; restart from the first page`);
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined) throw invalid('is malformed');
  const expected = Buffer.from(sign(payload, binding.secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('is not one this API returned');
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { k: string; i: string; s: string };
  if (decoded.s !== digest(binding.scope)) throw invalid('belongs to a pass with other parameters');
  return { sortKey: decoded.k, id: decoded.i };
}

/**
 * A piece of SQL: a condition, a column list, a `from` clause. Modules publish fragments over their own
 * tables (a `from` item, a scalar subquery) where another module's query needs a join.
 */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** One synchronised list: what it selects and from where, sorted by (`alias.column`, `alias.id`). */
export interface SyncedList {
  /** Sorted by (column, id) descending (conversations, messages: newest first); ascending otherwise. */
  newestFirst?: boolean;
  /** The alias (or table name) in `source` that holds the sort column, `id` and, with `softDelete`, `deleted_at`. */
  table: string;
  /** The sort timestamp. */
  column: string;
  /** Whether rows with `deleted_at` set are left out unless `includeDeleted`. */
  softDelete: boolean;
  /** What follows `from`. */
  source: Fragment;
  /** What the rows show (the position columns are added and taken off again). */
  columns: Fragment;
  /**
   * The list's own conditions, built only once the cursor is accepted (so a bad cursor is refused
   * before a bad filter value).
   */
  filters?: () => Fragment[];
}

/**
 * One page of a synchronised list: after the cursor's position, the `updatedSince` window and the
 * soft-delete rule (see syncConditions), the list's filters, `limit + 1` rows in (column, id) order.
 */
export async function syncedPage<T extends object>(
  tx: Tx,
  list: SyncedList,
  options: { query: ListQuery; binding: CursorBinding; ceilingSeconds: number },
): Promise<Page<T>> {
  const { query, binding, ceilingSeconds } = options;
  // An empty cursor was sent, so it is checked (and refused), not taken for the first page.
  const position = query.cursor === undefined ? undefined : decodeCursor(query.cursor, binding);
  const newestFirst = list.newestFirst ?? false;
  const conditions = [
    ...syncConditions(tx, {
      table: list.table,
      column: list.column,
      query,
      position,
      ceilingSeconds,
      softDelete: list.softDelete,
      newestFirst,
    }),
    ...(list.filters?.() ?? []),
  ];
  const column = tx(`${list.table}.${list.column}`);
  const id = tx(`${list.table}.id`);
  const direction = newestFirst ? tx`desc` : tx`asc`;
  const rows = await tx<(T & PositionColumns)[]>`
    select ${list.columns}, ${column}::text as page_sort_key, ${id}::text as page_position_id
    from ${list.source}
    where ${whereAll(tx, conditions)}
    order by ${column} ${direction}, ${id} ${direction}
    limit ${query.limit + 1}`;
  return toPage(
    rows,
    query.limit,
    binding,
    (row) => ({ sortKey: row.pageSortKey, id: row.pagePositionId }),
    ({ pageSortKey: _sortKey, pagePositionId: _id, ...row }) => row as T,
  );
}

/** The position of a row, selected beside the list's own columns (camel-cased by the client). */
interface PositionColumns {
  pageSortKey: string;
  pagePositionId: string;
}

/**
 * The conditions every synchronised list shares, on `column` (the sort timestamp) and `id`:
 * after the cursor's position (before it, newest first); `updatedSince` inclusive, then only rows older than the safety
 * delay (the shop's recompute ceiling + 15 s); soft-deleted rows only with `includeDeleted`.
 */
function syncConditions(
  tx: Tx,
  options: {
    table: string;
    column: string;
    query: ListQuery;
    position: Position | undefined;
    ceilingSeconds: number;
    softDelete: boolean;
    newestFirst: boolean;
  },
): Fragment[] {
  const column = tx(`${options.table}.${options.column}`);
  const id = tx(`${options.table}.id`);
  const conditions: Fragment[] = [];
  if (options.position) {
    // The sort key is the database's own text, to the microsecond (db/client.ts sends it as it is).
    const after = tx`(${options.position.sortKey}::timestamptz, ${options.position.id}::uuid)`;
    conditions.push(options.newestFirst ? tx`(${column}, ${id}) < ${after}` : tx`(${column}, ${id}) > ${after}`);
  }
  if (options.query.updatedSince) {
    conditions.push(tx`${column} >= ${options.query.updatedSince}`);
    conditions.push(tx`${column} <= now() - make_interval(secs => ${options.ceilingSeconds + SAFETY_MARGIN_SECONDS})`);
  }
  if (options.softDelete && !options.query.includeDeleted) conditions.push(tx`${tx(`${options.table}.deleted_at`)} is null`);
  return conditions;
}

/** Joins conditions with `and` (`true` when there are none). */
function whereAll(tx: Tx, conditions: Fragment[]): Fragment {
  return conditions.reduce((all, condition) => tx`${all} and ${condition}`, tx`true`);
}

/**
 * Turns `limit + 1` fetched rows into a page: the extra row only tells that there is more.
 * `position` reads the sort key (as text) and id of a row.
 */
export function toPage<Row, T>(
  rows: Row[],
  limit: number,
  binding: CursorBinding,
  position: (row: Row) => Position,
  present: (row: Row) => T,
): Page<T> {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const last = shown.at(-1);
  return { data: shown.map(present), nextCursor: more && last ? encodeCursor(position(last), binding) : null };
}

/** `text` with `\`, `%` and `_` escaped, for a `like` pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
