import { ProblemError, type Api } from './api.js';
import { pages } from './pagination.js';

/** A pass starts this long before the stored mark: more than the longest safety delay. */
export const OVERLAP_MS = 15 * 60 * 1000;

/** The lists synchronised by `updatedAt`, and whether they list deleted records when asked. */
const LISTS = {
  '/orders': true,
  '/products': true,
  '/customers': true,
  '/shipments': false,
} as const;

/** Where the mark is kept between passes: a row of your database, a file. */
export interface MarkStore {
  get(): Promise<string | null>;
  set(mark: string): Promise<void>;
}

/**
 * One reconciliation pass: every record changed since the stored mark (all of them on the first
 * pass), deleted ones included. `apply` upserts by `id`, since the overlap and a restart send some
 * records again. The new mark, the latest `updatedAt` seen, is stored once every page is applied.
 */
export async function syncPass<Row extends { id: string; updatedAt: string }>(
  api: Api,
  path: keyof typeof LISTS,
  store: MarkStore,
  apply: (rows: Row[]) => Promise<void>,
): Promise<void> {
  const stored = await store.get();
  const query = new URLSearchParams({ limit: '100' });
  if (LISTS[path]) query.set('includeDeleted', 'true');
  if (stored !== null) {
    query.set('updatedSince', new Date(Date.parse(stored) - OVERLAP_MS).toISOString());
  }
  for (let attempt = 1; ; attempt += 1) {
    let mark = stored;
    try {
      for await (const rows of pages<Row>(api, path, query)) {
        await apply(rows);
        for (const row of rows) {
          if (mark === null || Date.parse(row.updatedAt) > Date.parse(mark)) mark = row.updatedAt;
        }
      }
    } catch (error) {
      // A cursor the API no longer takes: the pass starts again from its first page.
      const cursorRefused =
        error instanceof ProblemError && error.problem.code === 'invalid-cursor';
      if (cursorRefused && attempt < 3) continue;
      throw error;
    }
    if (mark !== null) await store.set(mark);
    return;
  }
}
