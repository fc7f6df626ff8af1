import { graphErrors } from './graph-errors.js';

/** Where an item sits in a newest-first list: its time, then a sequence number breaking ties. */
export type SortKey = readonly [timeMs: number, sequence: number];

export interface GraphPage<T> {
  data: T[];
  paging?: { cursors: { before: string; after: string }; next?: string };
}

/**
 * Graph-style cursor paging over a newest-first list. A cursor is the key of an item, so the next
 * page starts right after it even when newer items arrived meanwhile (as the real cursors do).
 */
export function pageNewestFirst<T, R>(
  items: T[],
  keyOf: (item: T) => SortKey,
  request: { after?: string; limit: number; nextUrl: (after: string) => string },
  render: (item: T) => R,
): GraphPage<R> {
  const sorted = [...items].sort((a, b) => compareKeys(keyOf(b), keyOf(a)));
  const start = request.after === undefined ? sorted : sorted.filter((item) => compareKeys(keyOf(item), decodeCursor(request.after!)) < 0);
  const pageItems = start.slice(0, request.limit);
  const first = pageItems[0];
  const last = pageItems.at(-1);
  if (!first || !last) return { data: [] };
  const after = encodeCursor(keyOf(last));
  return {
    data: pageItems.map(render),
    paging: {
      cursors: { before: encodeCursor(keyOf(first)), after },
      ...(start.length > pageItems.length ? { next: request.nextUrl(after) } : {}),
    },
  };
}

function compareKeys(a: SortKey, b: SortKey): number {
  return a[0] - b[0] || a[1] - b[1];
}

function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(cursor: string): SortKey {
  const invalid = graphErrors.invalidParameter('The parameter after is not a valid cursor');
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === 2 && key.every((part) => Number.isSafeInteger(part)))
      return [key[0] as number, key[1] as number];
  } catch {
    throw invalid;
  }
  throw invalid;
}
