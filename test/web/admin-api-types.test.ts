import { describe, expect, it } from 'vitest';
import { ADMIN_API_TYPES_FILE, adminApiTypes } from '../../scripts/admin-api-types.js';
import { readTypesFiles } from '../../scripts/generated-types-files.js';
import { useSuite } from '../support/suite.js';

const { api } = useSuite({ api: true });

describe("the admin web app's generated API types", () => {
  it('match the admin OpenAPI document (run `npm run web:types` after changing an admin route)', async () => {
    const document: unknown = await (await fetch(`${api.baseUrl}/api/admin/openapi.json`)).json();
    const fresh = await adminApiTypes(document);
    const written = readTypesFiles(ADMIN_API_TYPES_FILE);
    expect(written.index).toBe(fresh.index);
    expect(Object.fromEntries(written.parts)).toEqual(Object.fromEntries(fresh.parts));
  });
});
