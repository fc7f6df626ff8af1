import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSecretKey, randomBytes } from 'node:crypto';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { Connection } from '@temporalio/client';
import { ADMIN_PREFIX, buildApp } from '../api/app.js';
import { createSql } from '../db/client.js';
import { OFFICIAL_CARRIER_HOSTS } from '../config/settings.js';
import { projectRoot } from './bootstrap/paths.js';

/** The admin web app's typed client (openapi-fetch) reads these types; test/web checks they are current. */
export const ADMIN_API_TYPES_FILE = join(projectRoot, 'web', 'src', 'api', 'admin-api.generated.ts');

/** The TypeScript types of the admin OpenAPI document (`/api/admin/openapi.json`), as one file. */
export async function adminApiTypes(document: unknown): Promise<string> {
  return `${COMMENT_HEADER}${astToString(await openapiTS(document as OpenAPI3, { alphabetize: true }))}`;
}

/** A document the API serves at `path`, from an API built but never started: no database or Temporal connection is made. */
export async function currentDocument(path: string): Promise<unknown> {
  const app = await buildApp({
    sql: createSql('postgres://unused@127.0.0.1:1/unused', { applicationName: 'shopflow-types' }),
    temporal: Connection.lazy({ address: '127.0.0.1:1' }),
    publicBaseUrl: 'http://localhost:3000',
    secureCookies: false,
    cursorSecret: 'unused',
    secretsKey: createSecretKey(randomBytes(32)),
    temporalNamespace: 'default',
    payloadCodecKeys: [{ id: 'unused', key: randomBytes(32) }],
    temporalTaskQueue: 'unused',
    temporalUiUrl: 'http://127.0.0.1:8233',
    workflowSealKey: 'unused',
    outbound: { allowLoopback: false },
    carrierEndpoints: { hosts: OFFICIAL_CARRIER_HOSTS, allowLoopback: false },
    logger: false,
  });
  const response = await app.inject({ method: 'GET', url: path });
  await app.close();
  return response.json();
}

// `npm run web:types`: regenerate after changing an admin route's schemas.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(ADMIN_API_TYPES_FILE, await adminApiTypes(await currentDocument(`${ADMIN_PREFIX}/openapi.json`)));
  console.log(`wrote ${ADMIN_API_TYPES_FILE}`);
}
