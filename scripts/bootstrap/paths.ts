import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { homedir } from 'node:os';

/** The clone's root folder. */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
/** Node's arguments that run a TypeScript entry point of this project (scripts/typescript-imports.mjs). */
export const typescriptImports = ['--import', new URL('../typescript-imports.mjs', import.meta.url).href];
/** Project-local state: database cluster, Temporal's SQLite file, certificates, logs. */
export const dataDir = join(projectRoot, '.data');
/** Builds and downloads shared by every clone on this machine. */
export const cacheDir = process.env.SHOPFLOW_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'shopflow');
