import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The admin web app, served at /admin: by the API from `web/dist` (`vite build web`), or by Vite's
 * dev server with hot reload (scripts/web-dev.ts, which proxies /api to the API).
 */
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  // Where the dev server keeps its pre-bundled dependencies; a test starts from an empty one, as a fresh clone does.
  cacheDir: process.env.SHOPFLOW_VITE_CACHE_DIR ?? 'node_modules/.vite',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, reportCompressedSize: false },
});
