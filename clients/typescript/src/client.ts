import createFetchClient, { type Client, type ClientPathsWithMethod, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './open-api.generated.js';
import { ShopflowProblem } from './problems.js';
import { retryingFetch, type RetryOptions } from './retrying-fetch.js';

export interface ClientOptions {
  /** The service's address, for example `https://shopflow.example.com` (the `/api/open/v1` prefix is added). */
  baseUrl: string;
  /** An API key, `svc_live_…`: sent only in the `Authorization` header. */
  apiKey: string;
  retry?: RetryOptions;
  /** The `fetch` under the retries (a proxy agent, a test's recorder). */
  fetch?: typeof fetch;
}

/** The paths whose GET answers a page: `{ data, nextCursor }`. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { 'application/json': { nextCursor: unknown } } } } } }
    ? P
    : never;
}[keyof paths];
type ListOperation<P extends ListPath> = paths[P]['get'];
/** One row of the list at `P`. */
export type RowOf<P extends ListPath> = ListOperation<P>['responses'][200]['content']['application/json']['data'][number];
/** The parameters of the list at `P`, without `cursor` (the iterator follows `nextCursor` itself). */
export type ListParams<P extends ListPath> = {
  query?: Omit<NonNullable<ListOperation<P>['parameters']['query']>, 'cursor'>;
} & (ListOperation<P>['parameters'] extends { path: infer Path } ? { path: Path } : { path?: never });

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The keys `T` must have (openapi-fetch's rule for whether a call's `init` argument may be left out). */
type RequiredKeys<T> = { [K in keyof T]-?: Partial<Pick<T, K>> extends Pick<T, K> ? never : K }[keyof T];
type InitParam<Init> = RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** The answer of a call that returned: a refusal throws a `ShopflowProblem`, so only the success branch is left, `data` always there. */
export type Answered<R> = Extract<R, { data: unknown }>;
/** One method of `ShopflowApi`: openapi-fetch's, typed by path and parameters, answering only in success. */
export type ApiMethod<M extends HttpMethod> = <
  Path extends ClientPathsWithMethod<Client<paths>, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<Answered<FetchResponse<NonNullable<paths[Path][M]>, Init, `${string}/${string}`>>>;

/** The typed calls of `/api/open/v1`: openapi-fetch's client with the retries, whose refusals throw. */
export interface ShopflowApi {
  GET: ApiMethod<'get'>;
  POST: ApiMethod<'post'>;
  PUT: ApiMethod<'put'>;
  PATCH: ApiMethod<'patch'>;
  DELETE: ApiMethod<'delete'>;
  /** openapi-fetch middleware (logging, tracing): it sees each call once, whatever its retries. */
  use: Client<paths>['use'];
  eject: Client<paths>['eject'];
}

export interface ShopflowClient {
  /**
   * The typed client of `/api/open/v1` (openapi-fetch), with the retries. A refused request throws a
   * `ShopflowProblem`, so `data` is there whenever the call returns.
   */
  readonly api: ShopflowApi;
  /** Every row of a list, page after page along `nextCursor`, in one read pass. */
  paginate<P extends ListPath>(path: P, params?: ListParams<P>): AsyncGenerator<RowOf<P>, void, undefined>;
  /** The pages of a list, each with its rows (for sync, which keeps the pass's progress). */
  pages<P extends ListPath>(path: P, params?: ListParams<P>): AsyncGenerator<RowOf<P>[], void, undefined>;
}

type PageGet = (
  path: string,
  init: { params: { query: Record<string, unknown>; path?: unknown } },
) => Promise<{ data: { data: unknown[]; nextCursor: string | null } }>;

/** A client of one shop's Open API, for the key's shop. */
export function createShopflowClient(options: ClientOptions): ShopflowClient {
  const api = createFetchClient<paths>({
    baseUrl: `${options.baseUrl.replace(/\/+$/, '')}/api/open/v1`,
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(options.retry, options.fetch),
  });
  api.use({
    async onResponse({ response }) {
      if (!response.ok) throw await ShopflowProblem.from(response);
      return undefined;
    },
  });

  async function* pages<P extends ListPath>(path: P, params?: ListParams<P>): AsyncGenerator<RowOf<P>[], void, undefined> {
    const get = api.GET as unknown as PageGet;
    let cursor: string | null = null;
    do {
      const query: Record<string, unknown> = { ...params?.query, ...(cursor === null ? {} : { cursor }) };
      const { data } = await get(path, { params: { query, ...(params?.path ? { path: params.path } : {}) } });
      yield data.data as RowOf<P>[];
      cursor = data.nextCursor;
    } while (cursor !== null);
  }

  return {
    // The same object: its methods answer only in success, as the middleware above throws on refusals.
    api: api as unknown as ShopflowApi,
    pages,
    async *paginate(path, params) {
      for await (const page of pages(path, params)) yield* page;
    },
  };
}
