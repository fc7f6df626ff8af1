import { call, type Api } from './api.js';

/**
 * Every page of a paginated list, in order: follow `nextCursor` until it is null. Keep every other
 * parameter the same while paging (the cursor is bound to them), and never store a cursor: it is
 * only for this pass.
 */
export async function* pages<Row>(
  api: Api,
  path: string,
  query: URLSearchParams,
): AsyncGenerator<Row[]> {
  let cursor: string | null = null;
  do {
    const pageQuery = new URLSearchParams(query);
    if (cursor !== null) pageQuery.set('cursor', cursor);
    const { body } = await call<{ data: Row[]; nextCursor: string | null }>(
      api,
      'GET',
      `${path}?${pageQuery}`,
    );
    yield body.data;
    cursor = body.nextCursor;
  } while (cursor !== null);
}
