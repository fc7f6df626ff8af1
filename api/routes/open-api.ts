import type { FastifyContextConfig } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * The document's transform: zod to JSON Schema, and each operation's `x-permissions`, read from the
 * route's `config.permissions` (the one list the authentication hook enforces), and its
 * `x-rate-limit-counter` when the route names one (`config.rateCounter`). Sweeps and clients read
 * what an operation needs from the document itself.
 */
export const documentTransform: typeof jsonSchemaTransform = (input) => {
  const transformed = jsonSchemaTransform(input);
  const config = input.route.config as Pick<FastifyContextConfig, 'permissions' | 'rateCounter'> | undefined;
  const counter = config?.rateCounter ? { 'x-rate-limit-counter': config.rateCounter } : {};
  return { ...transformed, schema: { ...transformed.schema, 'x-permissions': config?.permissions ?? [], ...counter } };
};

type Operations = Record<
  string,
  { parameters?: { name: string; in: string }[]; responses?: Record<string, { links?: Record<string, unknown> }> }
>;

/**
 * The whole document's transform: zod components, then OpenAPI links between operations, which
 * clients and the fuzzer's stateful phase follow (`POST /orders` → `GET /orders/{id}`): a creation's
 * `id` and a list's first row's `id` lead to every operation on `{path}/{id}`, and a list's
 * `nextCursor` to its next page, with every other parameter unchanged (the cursor is bound to them).
 */
export const documentObjectTransform: typeof jsonSchemaTransformObject = (input) => {
  const document = jsonSchemaTransformObject(input) as { paths?: Record<string, Operations> };
  const paths = document.paths ?? {};
  const ref = (path: string, method: string) => `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`;
  for (const [path, operations] of Object.entries(paths)) {
    const itemPaths = Object.keys(paths).filter((candidate) => candidate.startsWith(`${path}/{id}`));
    const link = (method: string, status: string, id: string, extra: Record<string, unknown> = {}) => {
      const response = operations[method]?.responses?.[status];
      if (!response) return;
      const links: Record<string, unknown> = { ...extra };
      for (const itemPath of itemPaths)
        for (const itemMethod of Object.keys(paths[itemPath]!))
          links[
            `${itemMethod}${itemPath
              .slice(path.length)
              .replace(/[^A-Za-z]+/g, '_')
              .replace(/_$/, '')}`
          ] = {
            operationRef: ref(itemPath, itemMethod),
            parameters: { id },
          };
      if (Object.keys(links).length > 0) response.links = links;
    };
    link('post', '201', '$response.body#/id');
    const parameters = operations.get?.parameters ?? [];
    const same = Object.fromEntries(parameters.map(({ name, in: where }) => [name, `$request.${where}.${name}`]));
    const next = { nextPage: { operationRef: ref(path, 'get'), parameters: { ...same, cursor: '$response.body#/nextCursor' } } };
    link('get', '200', '$response.body#/data/0/id', parameters.some(({ name }) => name === 'cursor') ? next : {});
  }
  return document as ReturnType<typeof jsonSchemaTransformObject>;
};

/** The API reference page (Swagger UI). */
export const REFERENCE_PAGE = '/docs';
/**
 * The OpenAPI document, generated from the route schemas: served by the reference page at `json`
 * (and `yaml`), outside `/api/open/v1`, so client generators and fuzzers read it without a key.
 */
export const OPEN_API_DOCUMENT = `${REFERENCE_PAGE}/json`;

interface Document {
  info: object;
  paths?: Record<string, unknown>;
  components?: Record<string, unknown>;
}

/**
 * The admin API's own document (the admin web app's client is generated from it): the same
 * document, from the same zod schemas, with only the paths under `prefix` and the session cookie as
 * its security scheme.
 */
export const adminOpenApiRoutes: FastifyPluginAsyncZod<{ prefix: string }> = async (app, { prefix }) => {
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => {
    const whole = app.swagger() as unknown as Document;
    return {
      ...whole,
      info: {
        title: 'Shopflow admin API',
        version: 'v1',
        description: 'The admin web app’s API: session cookie, and X-CSRF-Token on changes.',
      },
      paths: Object.fromEntries(Object.entries(whole.paths ?? {}).filter(([path]) => path.startsWith(`${prefix}/`))),
      components: {
        ...whole.components,
        securitySchemes: { session: { type: 'apiKey', in: 'cookie', name: 'shopflow_session' } },
      },
      security: [{ session: [] }],
    };
  });
};
