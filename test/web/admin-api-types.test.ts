import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADMIN_API_TYPES_FILE, adminApiTypes } from '../../scripts/admin-api-types.js';
import { useSuite } from '../support/suite.js';

const { api } = useSuite({ api: true });

describe("the admin web app's generated API types", () => {
  it('match the admin OpenAPI document (run `npm run web:types` after changing an admin route)', async () => {
    const document: unknown = await (await fetch(`${api.baseUrl}/api/admin/openapi.json`)).json();
    expect(readFileSync(ADMIN_API_TYPES_FILE, 'utf8')).toBe(await adminApiTypes(document));
  });
});
