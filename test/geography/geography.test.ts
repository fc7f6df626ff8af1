import { describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { geoUnitId, listGeoUnits, resolveAddressUnits, toSearchName, type AddressUnitsInput } from '../../domain/geography/geography.js';

const { db } = useSuite();

const OLD = {
  hanoi: geoUnitId('old', '01'),
  baDinh: geoUnitId('old', '001'),
  hoanKiem: geoUnitId('old', '002'),
  phucXa: geoUnitId('old', '00001'),
  hcm: geoUnitId('old', '79'),
};
const NEW = {
  hanoi: geoUnitId('new', '01'),
  baDinh: geoUnitId('new', '00004'),
  danang: geoUnitId('new', '48'),
};

const resolve = (input: AddressUnitsInput) => resolveAddressUnits(db.app, input);

/** A 400 `validation-failed` whose errors name exactly `paths`. */
async function expectRefused(input: AddressUnitsInput, paths: string[]) {
  const error = await resolve(input).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({ code: 'validation-failed', status: 400 });
  const errors = (error as { options: { errors: { path: string; message: string }[] } }).options.errors;
  expect(errors.map((entry) => entry.path)).toEqual(paths);
  expect(errors.every((entry) => entry.message.length > 0)).toBe(true);
  return errors;
}

describe('resolveAddressUnits', () => {
  it('accepts an old province, district and ward and names them', async () => {
    await expect(
      resolve({ geoSystem: 'old', provinceUnitId: OLD.hanoi, districtUnitId: OLD.baDinh, wardUnitId: OLD.phucXa }),
    ).resolves.toEqual({
      geoSystem: 'old',
      provinceUnitId: OLD.hanoi,
      districtUnitId: OLD.baDinh,
      wardUnitId: OLD.phucXa,
      provinceName: 'Thành phố Hà Nội',
      districtName: 'Quận Ba Đình',
      wardName: 'Phường Phúc Xá',
    });
  });

  it('accepts a new province and ward, inferring the system', async () => {
    const expected = {
      geoSystem: 'new',
      provinceUnitId: NEW.hanoi,
      districtUnitId: null,
      wardUnitId: NEW.baDinh,
      provinceName: 'Thành phố Hà Nội',
      districtName: null,
      wardName: 'Phường Ba Đình',
    };
    await expect(resolve({ provinceUnitId: NEW.hanoi, wardUnitId: NEW.baDinh })).resolves.toEqual(expected);
    await expect(resolve({ geoSystem: null, provinceUnitId: NEW.hanoi, districtUnitId: null, wardUnitId: NEW.baDinh })).resolves.toEqual(
      expected,
    );
    await expect(resolve({ geoSystem: 'new', provinceUnitId: NEW.hanoi.toUpperCase(), wardUnitId: NEW.baDinh })).resolves.toEqual(expected);
  });

  it('returns a text-only address without unit ids', async () => {
    const empty = {
      geoSystem: null,
      provinceUnitId: null,
      districtUnitId: null,
      wardUnitId: null,
      provinceName: null,
      districtName: null,
      wardName: null,
    };
    await expect(resolve({})).resolves.toEqual(empty);
    await expect(resolve({ geoSystem: 'old', provinceUnitId: null })).resolves.toEqual(empty);
  });

  it('accepts ids that stop above the ward, naming only those levels', async () => {
    await expect(resolve({ provinceUnitId: NEW.danang })).resolves.toMatchObject({
      geoSystem: 'new',
      provinceName: 'Thành phố Đà Nẵng',
      wardUnitId: null,
      wardName: null,
    });
    await expect(resolve({ provinceUnitId: OLD.hanoi, districtUnitId: OLD.hoanKiem })).resolves.toMatchObject({
      geoSystem: 'old',
      districtName: 'Quận Hoàn Kiếm',
      wardName: null,
    });
  });

  it('refuses a district in the new system', async () => {
    // An old district beside new units: the systems differ.
    await expectRefused({ provinceUnitId: NEW.hanoi, districtUnitId: OLD.baDinh, wardUnitId: NEW.baDinh }, ['districtUnitId']);
    await expectRefused({ geoSystem: 'new', provinceUnitId: NEW.hanoi, districtUnitId: OLD.baDinh, wardUnitId: NEW.baDinh }, [
      'districtUnitId',
    ]);
    // A new unit in the district slot: it is not a district.
    await expectRefused({ provinceUnitId: NEW.hanoi, districtUnitId: NEW.baDinh, wardUnitId: NEW.baDinh }, ['districtUnitId']);
  });

  it('refuses a ward or district outside its parent', async () => {
    const [error] = await expectRefused({ provinceUnitId: NEW.danang, wardUnitId: NEW.baDinh }, ['wardUnitId']);
    expect(error!.message).toMatch(/Phường Ba Đình.*Thành phố Đà Nẵng/);
    await expectRefused({ provinceUnitId: OLD.hanoi, districtUnitId: OLD.hoanKiem, wardUnitId: OLD.phucXa }, ['wardUnitId']);
    await expectRefused({ provinceUnitId: OLD.hcm, districtUnitId: OLD.baDinh, wardUnitId: OLD.phucXa }, ['districtUnitId']);
  });

  it('refuses units of both systems', async () => {
    await expectRefused({ provinceUnitId: OLD.hanoi, wardUnitId: NEW.baDinh }, ['wardUnitId']);
    await expectRefused({ provinceUnitId: NEW.hanoi, districtUnitId: OLD.baDinh, wardUnitId: OLD.phucXa }, [
      'districtUnitId',
      'wardUnitId',
    ]);
  });

  it('refuses a geoSystem that contradicts the units', async () => {
    await expectRefused({ geoSystem: 'old', provinceUnitId: NEW.hanoi, wardUnitId: NEW.baDinh }, ['geoSystem']);
    await expectRefused({ geoSystem: 'new', provinceUnitId: OLD.hanoi, districtUnitId: OLD.baDinh, wardUnitId: OLD.phucXa }, ['geoSystem']);
  });

  it('refuses unknown ids with detail only, malformed ids and units of the wrong level on the field', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const refused = await resolve({ provinceUnitId: unknown, wardUnitId: NEW.hanoi }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(refused).toMatchObject({
      code: 'validation-failed',
      status: 400,
      detail: `provinceUnitId: no such administrative unit; take ids from GET /geo/units (${unknown})`,
    });
    expect((refused as { options: { errors?: unknown } }).options.errors).toBeUndefined();
    await expect(resolveAddressUnits(db.app, { wardUnitId: unknown }, 'shippingAddress.')).rejects.toMatchObject({
      detail: expect.stringContaining(`shippingAddress.wardUnitId: no such administrative unit`),
    });
    await expectRefused({ provinceUnitId: 'not-a-uuid' }, ['provinceUnitId']);
    await expectRefused({ provinceUnitId: NEW.baDinh, wardUnitId: NEW.hanoi }, ['provinceUnitId', 'wardUnitId']);
  });

  it('refuses a ward or district without its parents', async () => {
    await expectRefused({ wardUnitId: NEW.baDinh }, ['provinceUnitId']);
    await expectRefused({ provinceUnitId: OLD.hanoi, wardUnitId: OLD.phucXa }, ['districtUnitId']);
    await expectRefused({ districtUnitId: OLD.baDinh, wardUnitId: OLD.phucXa }, ['provinceUnitId']);
  });

  it('works inside a transaction too', async () => {
    const result = await db.app.begin((tx) => resolveAddressUnits(tx, { provinceUnitId: NEW.hanoi, wardUnitId: NEW.baDinh }));
    expect(result).toMatchObject({ geoSystem: 'new', wardName: 'Phường Ba Đình' });
  });
});

describe('listGeoUnits', () => {
  it('browses one tier and refuses a parent of the other system', async () => {
    const provinces = await listGeoUnits(db.app, { system: 'new' });
    expect(provinces).toHaveLength(34);
    expect(await listGeoUnits(db.app, { system: 'old', parentId: OLD.hanoi, search: 'HOÀN KIẾM' })).toEqual([
      { id: OLD.hoanKiem, system: 'old', level: 2, parentId: OLD.hanoi, name: 'Quận Hoàn Kiếm' },
    ]);
    await expect(listGeoUnits(db.app, { system: 'new', parentId: OLD.hanoi })).rejects.toMatchObject({ code: 'not-found', status: 404 });
  });
});

describe('toSearchName', () => {
  it('lower-cases, drops accents and đ, and folds punctuation', () => {
    expect(toSearchName('Thành phố Hà Nội')).toBe('thanh pho ha noi');
    expect(toSearchName('ĐÀ NẴNG')).toBe('da nang');
    expect(toSearchName('Tỉnh Bà Rịa - Vũng Tàu')).toBe('tinh ba ria vung tau');
    expect(toSearchName("Huyện Cư M'gar")).toBe('huyen cu mgar');
    // Decomposed input (as some keyboards send it) gives the same.
    expect(toSearchName('Thừa Thiên Huế'.normalize('NFD'))).toBe('thua thien hue');
  });
});
