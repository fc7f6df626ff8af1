import { createServer } from 'vite';
import { join } from 'node:path';
import { projectRoot } from './bootstrap/paths.js';

/**
 * The admin web app with hot reload, for `npm run dev`: Vite serves web/ at /admin and passes /api
 * to the API (same origin for the browser, so the session cookie and CSRF rules hold as in production).
 */
const server = await createServer({
  root: join(projectRoot, 'web'),
  configFile: join(projectRoot, 'web', 'vite.config.ts'),
  server: {
    port: Number(process.env.WEB_PORT),
    strictPort: true,
    host: 'localhost',
    proxy: { '/api': { target: process.env.API_URL, changeOrigin: false } },
  },
});
await server.listen();
console.log(`admin web app at http://localhost:${process.env.WEB_PORT}/admin/`);
