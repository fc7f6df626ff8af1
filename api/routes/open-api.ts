import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** The OpenAPI document, generated from the route schemas. */
export const openApiRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/openapi.json', { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
};
