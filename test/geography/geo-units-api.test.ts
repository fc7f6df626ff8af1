import { beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';
import { geoUnitId, toSearchName, uuidV5, type GeoUnit } from '../../domain/geography/geography.js';

const { db, api, shop, request } = useSuite({ api: true, shop: true });
let key: string;

beforeAll(async () => {
  // No permission beyond a valid key.
  key = (await shop.newKey([])).key;
});

const get = (query: string, headers: Record<string, string> = bearer(key)) => request('GET', `/geo/units?${query}`, { headers });

async function units(query: string): Promise<GeoUnit[]> {
  const response = await get(query);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: GeoUnit[] };
  expect(Object.keys(body)).toEqual(['data']);
  return body.data;
}

const names = (rows: GeoUnit[]) => rows.map((row) => row.name);

const HANOI_OLD = geoUnitId('old', '01');
const HANOI_NEW = geoUnitId('new', '01');
const BA_DINH_OLD = geoUnitId('old', '001');

describe('GET /geo/units', () => {
  it('lists the 63 provinces of the old system and the 34 of the new, sorted by name', async () => {
    const old = await units('system=old');
    expect(old).toHaveLength(63);
    expect(old.every((unit) => unit.system === 'old' && unit.level === 1 && unit.parentId === null)).toBe(true);
    expect(old).toContainEqual({ id: HANOI_OLD, system: 'old', level: 1, parentId: null, name: 'Thành phố Hà Nội' });
    expect(names(old)).toContain('Tỉnh Bà Rịa - Vũng Tàu');

    const current = await units('system=new');
    expect(current).toHaveLength(34);
    expect(current.every((unit) => unit.system === 'new' && unit.level === 1 && unit.parentId === null)).toBe(true);
    expect(current).toContainEqual({ id: HANOI_NEW, system: 'new', level: 1, parentId: null, name: 'Thành phố Hà Nội' });
    expect(names(current)).toContain('Thành phố Huế');
    expect(names(current)).not.toContain('Tỉnh Bà Rịa - Vũng Tàu');

    for (const list of [old, current]) {
      const keys = list.map((unit) => toSearchName(unit.name));
      expect(keys).toEqual([...keys].sort());
    }
  });

  it('lists the districts of an old province and the wards of a new one', async () => {
    const districts = await units(`system=old&parentId=${HANOI_OLD}`);
    expect(districts).toHaveLength(30);
    expect(districts.every((unit) => unit.level === 2 && unit.parentId === HANOI_OLD && unit.system === 'old')).toBe(true);
    expect(names(districts)).toEqual(expect.arrayContaining(['Quận Ba Đình', 'Quận Hoàn Kiếm', 'Huyện Sóc Sơn', 'Thị xã Sơn Tây']));

    const wards = await units(`system=new&parentId=${HANOI_NEW}`);
    expect(wards).toHaveLength(126);
    expect(wards.every((unit) => unit.level === 3 && unit.parentId === HANOI_NEW && unit.system === 'new')).toBe(true);
    expect(names(wards)).toEqual(expect.arrayContaining(['Phường Ba Đình', 'Phường Hoàn Kiếm', 'Xã Sóc Sơn']));
  });

  it('lists the wards of an old district; a ward has no children', async () => {
    const wards = await units(`system=old&parentId=${BA_DINH_OLD}`);
    expect(wards).toHaveLength(14);
    expect(wards.every((unit) => unit.level === 3 && unit.parentId === BA_DINH_OLD)).toBe(true);
    expect(wards).toContainEqual({ id: geoUnitId('old', '00001'), system: 'old', level: 3, parentId: BA_DINH_OLD, name: 'Phường Phúc Xá' });
    expect(await units(`system=old&parentId=${geoUnitId('old', '00001')}`)).toEqual([]);
  });

  it('searches names ignoring case and accents, within the tier asked for', async () => {
    for (const search of ['ha noi', 'HA NOI', 'Hà Nội', 'hà nội', 'HÀ NỘI', ' ha  noi ']) {
      expect(names(await units(`system=old&search=${encodeURIComponent(search)}`)), search).toEqual(['Thành phố Hà Nội']);
      expect(names(await units(`system=new&search=${encodeURIComponent(search)}`)), search).toEqual(['Thành phố Hà Nội']);
    }
    for (const search of ['Đà Nẵng', 'đà nẵng', 'ĐÀ NẴNG', 'da nang', 'DA NANG', 'Đa Nang', 'đa nẵng']) {
      expect(names(await units(`system=new&search=${encodeURIComponent(search)}`)), search).toEqual(['Thành phố Đà Nẵng']);
    }
    // Accent-insensitive both ways: Đà, Đa, da and DA all find Đà Nẵng and Đắk Lắk.
    for (const search of ['Đà', 'Đa', 'đà', 'da', 'DA']) {
      expect(names(await units(`system=old&search=${encodeURIComponent(search)}`)), search).toEqual([
        'Thành phố Đà Nẵng',
        'Tỉnh Đắk Lắk',
        'Tỉnh Đắk Nông',
      ]);
      expect(names(await units(`system=new&search=${encodeURIComponent(search)}`)), search).toEqual(['Thành phố Đà Nẵng', 'Tỉnh Đắk Lắk']);
    }
    expect(names(await units('system=old&search=vung%20tau'))).toEqual(['Tỉnh Bà Rịa - Vũng Tàu']);
    // Within the children of one unit only.
    expect(names(await units(`system=old&parentId=${HANOI_OLD}&search=ba%20dinh`))).toEqual(['Quận Ba Đình']);
    expect(names(await units(`system=new&parentId=${HANOI_NEW}&search=ba%20dinh`))).toEqual(['Phường Ba Đình']);
    expect(await units('system=old&search=zzz')).toEqual([]);
    // Apostrophes of minority-language names do not matter.
    const dakLak = geoUnitId('old', '66');
    expect(names(await units(`system=old&parentId=${dakLak}&search=${encodeURIComponent('cư mgar')}`))).toEqual(["Huyện Cư M'gar"]);
    expect(names(await units(`system=old&parentId=${dakLak}&search=${encodeURIComponent("cu m'gar")}`))).toEqual(["Huyện Cư M'gar"]);
  });

  it('answers 404 for a parentId that does not exist or belongs to the other system', async () => {
    await expectProblem(await get('system=old&parentId=00000000-0000-4000-8000-000000000000'), 404, 'not-found');
    await expectProblem(await get(`system=old&parentId=${HANOI_NEW}`), 404, 'not-found');
    await expectProblem(await get(`system=new&parentId=${BA_DINH_OLD}`), 404, 'not-found');
  });

  it('answers 400 for a missing or invalid query', async () => {
    const missing = await expectProblem(await get(''), 400, 'validation-failed');
    expect(missing.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'system' })]));
    const invalid = await expectProblem(await get('system=middle'), 400, 'validation-failed');
    expect(invalid.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'system' })]));
    await expectProblem(await get('system=old&parentId=not-a-uuid'), 400, 'validation-failed');
    await expectProblem(await get('system=old&search='), 400, 'validation-failed');
    await expectProblem(await get(`system=old&search=${'a'.repeat(101)}`), 400, 'validation-failed');
  });

  it('needs a valid key', async () => {
    await expectProblem(await get('system=old', {}), 401, 'invalid-api-key');
  });

  it('has ids derived from (system, official code) by UUID v5, the same on every installation', async () => {
    // RFC 9562 test vector: the DNS namespace and www.example.com.
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    // Frozen values: a change of namespace or name form would orphan every stored address.
    expect(HANOI_OLD).toBe('556774ae-05f6-5233-aef5-be4633714a44');
    expect(geoUnitId('new', '48')).toBe('eee18946-13f2-552c-b372-9aa93a0cfc7e');

    const rows = await db.admin<{ id: string; system: 'old' | 'new'; code: string }[]>`select id, system, code from geo_units`;
    expect(rows).toHaveLength(63 + 705 + 10_599 + 34 + 3_321);
    expect(rows.filter((row) => row.id !== geoUnitId(row.system, row.code))).toEqual([]);
    const [danang] = await units('system=new&search=da%20nang');
    expect(danang!.id).toBe(geoUnitId('new', '48'));
  });

  it('is reference data: readable without a shop, not writable by the application role', async () => {
    const [row] = await db.app<{ count: number }[]>`select count(*)::int as count from geo_units`;
    expect(row!.count).toBeGreaterThan(14_000);
    await expect(db.app`delete from geo_units where code = '01'`).rejects.toMatchObject({ code: '42501' });
    await expect(
      db.app`insert into geo_units (id, system, level, code, name, search_name) values (gen_random_uuid(), 'new', 1, '99', 'X', 'x')`,
    ).rejects.toMatchObject({ code: '42501' });
  });

  it('is in the OpenAPI document, its rows as the GeoUnit schema', async () => {
    const response = await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`);
    const document = (await response.json()) as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> };
    const operation = document.paths['/api/open/v1/geo/units']?.get;
    expect(operation?.parameters?.map((parameter) => parameter.name)).toEqual(['system', 'parentId', 'search']);
    expect(JSON.stringify(operation)).toContain('"$ref":"#/components/schemas/GeoUnit"');
  });
});
