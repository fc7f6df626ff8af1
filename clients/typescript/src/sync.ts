import type { ListPath, RowOf, ShopflowClient } from './client.js';
import { isProblem } from './problems.js';

/** How each synchronisable list is read (spec, Limits: Synchronisation semantics). */
const RESOURCES = {
  orders: { path: '/orders', includeDeleted: true, mark: (row: { updatedAt: string }) => row.updatedAt },
  products: { path: '/products', includeDeleted: true, mark: (row: { updatedAt: string }) => row.updatedAt },
  customers: { path: '/customers', includeDeleted: true, mark: (row: { updatedAt: string }) => row.updatedAt },
  shipments: { path: '/shipments', includeDeleted: false, mark: (row: { updatedAt: string }) => row.updatedAt },
  // A stock row has no id nor updatedAt: it is one variant in one warehouse, marked by its last stock change.
  stock: { path: '/inventory/stock', includeDeleted: false, mark: (row: { stockChangedAt: string }) => row.stockChangedAt },
} as const satisfies Record<string, { path: ListPath; includeDeleted: boolean; mark: (row: never) => string }>;

export type SyncResource = keyof typeof RESOURCES;
export type SyncRow<R extends SyncResource> = RowOf<(typeof RESOURCES)[R]['path']>;

/** The key rows are de-duplicated by: `id`, or `variantId:warehouseId` for stock. */
export function syncKey(resource: SyncResource, row: object): string {
  return resource === 'stock'
    ? `${(row as { variantId: string }).variantId}:${(row as { warehouseId: string }).warehouseId}`
    : (row as { id: string }).id;
}

/** Where the mark of each resource is kept between passes (a file, a table); the pass stores it after `apply` succeeded. */
export interface MarkStore {
  get(resource: SyncResource): string | null | Promise<string | null>;
  set(resource: SyncResource, mark: string): void | Promise<void>;
}

export function memoryMarkStore(): MarkStore {
  const marks = new Map<SyncResource, string>();
  return { get: (resource) => marks.get(resource) ?? null, set: (resource, mark) => void marks.set(resource, mark) };
}

/** The spec's overlap: a pass starts 15 minutes before the stored mark (more than the longest safety delay). */
export const SYNC_OVERLAP_MS = 15 * 60 * 1000;

export interface SyncOptions<R extends SyncResource> {
  store: MarkStore;
  /** Receives the rows changed since the last pass, each once (its latest version in the pass); may be called several times. */
  apply: (rows: SyncRow<R>[]) => void | Promise<void>;
  /** Page size, 1 to 100. Default 100. */
  limit?: number;
  /** Restarts from the first page after `invalid-cursor`, at most this many times. Default 3. */
  maxRestarts?: number;
}

/**
 * One reconciliation pass over `resource` (spec, Limits: Synchronisation semantics): from 15 minutes
 * before the stored mark (everything on the first pass), deleted records included where the list has
 * them, rows de-duplicated by key (the overlap sends some again), back to the first page on
 * `invalid-cursor`; then the new mark (the latest `updatedAt` seen) is stored. Returns the rows applied.
 */
export async function sync<R extends SyncResource>(client: ShopflowClient, resource: R, options: SyncOptions<R>): Promise<number> {
  const { path, includeDeleted, mark: markOf } = RESOURCES[resource];
  const stored = await options.store.get(resource);
  const updatedSince = stored === null ? undefined : new Date(Date.parse(stored) - SYNC_OVERLAP_MS).toISOString();
  const query = {
    limit: options.limit ?? 100,
    ...(updatedSince ? { updatedSince } : {}),
    ...(includeDeleted ? { includeDeleted: true } : {}),
  };
  for (let restarts = 0; ; restarts++) {
    const latest = new Map<string, SyncRow<R>>();
    let mark = stored;
    try {
      for await (const page of client.pages(path, { query } as never)) {
        for (const row of page as SyncRow<R>[]) {
          latest.set(syncKey(resource, row), row);
          const rowMark = (markOf as (row: SyncRow<R>) => string)(row);
          if (mark === null || Date.parse(rowMark) > Date.parse(mark)) mark = rowMark;
        }
      }
    } catch (error) {
      if (isProblem(error, 'invalid-cursor') && restarts < (options.maxRestarts ?? 3)) continue;
      throw error;
    }
    await options.apply([...latest.values()]);
    if (mark !== null) await options.store.set(resource, mark);
    return latest.size;
  }
}
