import fp from 'fastify-plugin';
import { Problem } from '../../domain/kernel/index.js';

/**
 * A known path asked with a method it does not have is 405 `method-not-allowed` with `Allow` (RFC
 * 9110), not 404: the path exists, the method does not. Decided in `onRequest` before any body is
 * read (a `QUERY` or `TRACE` carries one), from the routes as they are added; registered after the
 * authentication plugin, so under `/api/open/v1` the key is checked and counted first (no key is
 * 401 whatever the method, and a 405 carries its rate headers).
 */
export const methodNotAllowedPlugin = fp(async (app) => {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    // `/orders/:id` → one segment for each parameter; `*` (static files) → the rest of the path.
    const source = route.url
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}$`);
    let entry = routes.find((candidate) => candidate.pattern.source === pattern.source);
    if (!entry) routes.push((entry = { pattern, methods: new Set() }));
    for (const method of [route.method].flat()) entry.methods.add(method);
  });
  app.addHook('onRequest', async (request) => {
    if (!request.is404) return;
    const path = request.url.split('?', 1)[0]!;
    const allowed = [...new Set(routes.filter((route) => route.pattern.test(path)).flatMap((route) => [...route.methods]))];
    if (allowed.length === 0) return;
    throw new Problem('method-not-allowed', `${request.method} is not a method of ${path}; it has ${allowed.join(', ')}`, {
      headers: { allow: allowed.join(', ') },
    });
  });
});
