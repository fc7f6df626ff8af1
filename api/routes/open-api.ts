import { jsonSchemaTransform, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * The document's transform: zod to JSON Schema, and each operation's `x-permissions`, read from the
 * route's `config.permissions` (the one list the authentication hook enforces). Sweeps and clients
 * read what an operation needs from the document itself.
 */
export const documentTransform: typeof jsonSchemaTransform = (input) => {
  const transformed = jsonSchemaTransform(input);
  const permissions = (input.route.config as { permissions?: string[] } | undefined)?.permissions ?? [];
  return { ...transformed, schema: { ...transformed.schema, 'x-permissions': permissions } };
};

/** The OpenAPI document, generated from the route schemas. */
export const openApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
};

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
