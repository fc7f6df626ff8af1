import { createHash } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { isUuid, Problem, type FieldError } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';

/** `old`: province, district, ward (before 1 July 2025). `new`: province, ward. */
export type GeoSystem = 'old' | 'new';
export const GEO_SYSTEMS = ['old', 'new'] as const satisfies readonly GeoSystem[];

/** 1 province or centrally run city, 2 district (only in `old`), 3 ward or commune. */
export type GeoLevel = 1 | 2 | 3;

export interface GeoUnit {
  id: string;
  system: GeoSystem;
  level: GeoLevel;
  parentId: string | null;
  name: string;
}

/**
 * The namespace of geo unit ids (UUID v5). Never change it: the ids of every installation, and every
 * address that stores them, derive from it.
 */
export const GEO_UNIT_NAMESPACE = '7f740362-35d7-402b-90a1-e6191ee7c735';

/** RFC 9562 UUID version 5: SHA-1 of the namespace's 16 bytes followed by the UTF-8 name. */
export function uuidV5(name: string, namespace: string): string {
  if (!isUuid(namespace)) throw new Error(`not a UUID: ${namespace}`);
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The id of the unit with official code `code` in `system`: the same on every installation. */
export function geoUnitId(system: GeoSystem, code: string): string {
  return uuidV5(`${system}:${code}`, GEO_UNIT_NAMESPACE);
}

/**
 * The form names are searched in: lower case, without accents (đ → d), every run of other
 * characters than letters and digits as one space, apostrophes dropped. `Bà Rịa - Vũng Tàu` → `ba ria vung
 * tau`, `Cư M'gar` → `cu mgar`.
 */
export function toSearchName(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replaceAll('đ', 'd')
    .replace(/['\u2019\u02bc]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * One tier of the tree of `system`: the provinces without `parentId`, else the children of that unit,
 * sorted by name; `search` keeps the names that contain it, ignoring case and accents. A `parentId`
 * that does not exist or belongs to the other system is `not-found`.
 */
export async function listGeoUnits(
  sql: Sql | Tx,
  query: { system: GeoSystem; parentId?: string | undefined; search?: string | undefined },
): Promise<GeoUnit[]> {
  const { system, parentId } = query;
  if (parentId !== undefined) {
    const [parent] = isUuid(parentId) ? await sql<{ system: GeoSystem }[]>`select system from geo_units where id = ${parentId}` : [];
    if (!parent || parent.system !== system) throw new Problem('not-found', `No geo unit ${parentId} in the ${system} system`);
  }
  const search = query.search === undefined ? '' : toSearchName(query.search);
  return sql<GeoUnit[]>`
    select id, system, level, parent_id, name
    from geo_units
    where system = ${system}
      and ${parentId === undefined ? sql`parent_id is null` : sql`parent_id = ${parentId}`}
      and (${search} = '' or strpos(search_name, ${search}) > 0)
    order by search_name, name`;
}

export interface AddressUnitsInput {
  geoSystem?: GeoSystem | null | undefined;
  provinceUnitId?: string | null | undefined;
  districtUnitId?: string | null | undefined;
  wardUnitId?: string | null | undefined;
}

export interface AddressUnits {
  geoSystem: GeoSystem | null;
  provinceUnitId: string | null;
  districtUnitId: string | null;
  wardUnitId: string | null;
  provinceName: string | null;
  districtName: string | null;
  wardName: string | null;
}

type Slot = 'provinceUnitId' | 'districtUnitId' | 'wardUnitId';
const SLOTS: readonly { slot: Slot; level: GeoLevel; noun: string }[] = [
  { slot: 'provinceUnitId', level: 1, noun: 'a province' },
  { slot: 'districtUnitId', level: 2, noun: 'a district' },
  { slot: 'wardUnitId', level: 3, noun: 'a ward' },
];

/**
 * Checks the unit ids of an address against the tree and returns them with their names (and the
 * system, inferred from the units when `geoSystem` is absent or null). In `old` a district's parent is
 * the province and a ward's the district; in `new` there is no district and a ward's parent is the
 * province. The ids may stop above the ward (a province alone, or a province and district in `old`);
 * the names of the missing levels are then null, for the caller to take from its text. Without any
 * unit id the address is text only: everything is null. Refusals are `validation-failed`: a
 * well-formed id naming no unit comes first and alone, with `detail` only (a reference to a record
 * that does not exist, spec Errors); the rest (an id that is not a uuid, a unit of the wrong level,
 * system or parent) name the offending field in `errors[].path`. `path` prefixes the field paths
 * (`shippingAddress.`).
 */
export async function resolveAddressUnits(sql: Sql | Tx, input: AddressUnitsInput, path = ''): Promise<AddressUnits> {
  const ids = {
    provinceUnitId: input.provinceUnitId ?? null,
    districtUnitId: input.districtUnitId ?? null,
    wardUnitId: input.wardUnitId ?? null,
  };
  const given = SLOTS.filter(({ slot }) => ids[slot] !== null);
  if (given.length === 0) {
    return {
      geoSystem: null,
      provinceUnitId: null,
      districtUnitId: null,
      wardUnitId: null,
      provinceName: null,
      districtName: null,
      wardName: null,
    };
  }

  const refuse = (errors: FieldError[]): never => {
    throw new Problem('validation-failed', 'The administrative units of the address do not fit together', {
      errors: errors.map((error) => ({ ...error, path: `${path}${error.path}` })),
    });
  };

  const wellFormed = given.map(({ slot }) => ids[slot]!).filter(isUuid);
  const rows =
    wellFormed.length === 0
      ? []
      : await sql<
          (GeoUnit & { id: string })[]
        >`select id, system, level, parent_id, name from geo_units where id = any(${wellFormed}::uuid[])`;
  const byId = new Map(rows.map((row) => [row.id.toLowerCase(), row]));
  const unitOf = (slot: Slot) => (ids[slot] === null ? null : (byId.get(ids[slot].toLowerCase()) ?? null));

  // Each id names a unit, of its level.
  const absent = given.filter(({ slot }) => isUuid(ids[slot]!) && !unitOf(slot));
  if (absent.length > 0) {
    const described = absent.map(({ slot }) => `${path}${slot}: no such administrative unit; take ids from GET /geo/units (${ids[slot]!})`);
    throw new Problem('validation-failed', described.join('; '));
  }
  const errors: FieldError[] = [];
  for (const { slot, level, noun } of given) {
    const unit = unitOf(slot);
    if (!unit) errors.push({ path: slot, message: 'must be a uuid from GET /geo/units' });
    else if (unit.level !== level) errors.push({ path: slot, message: `the unit ${unit.name} is not ${noun}` });
  }
  if (errors.length > 0) refuse(errors);

  // One system, agreeing with geoSystem when given.
  const first = unitOf(given[0]!.slot)!;
  for (const { slot } of given.slice(1)) {
    const unit = unitOf(slot)!;
    if (unit.system !== first.system) {
      errors.push({
        path: slot,
        message: `the unit belongs to the ${unit.system} system but ${given[0]!.slot} to the ${first.system} system`,
      });
    }
  }
  if (errors.length > 0) refuse(errors);
  const system = first.system;
  if (input.geoSystem != null && input.geoSystem !== system) {
    refuse([{ path: 'geoSystem', message: `is ${input.geoSystem} but the units belong to the ${system} system` }]);
  }

  // The hierarchy.
  const province = unitOf('provinceUnitId');
  const district = unitOf('districtUnitId');
  const ward = unitOf('wardUnitId');
  if (system === 'new' && district) {
    refuse([{ path: 'districtUnitId', message: 'must be null in the new system, which has no districts' }]);
  }
  if (!province) errors.push({ path: 'provinceUnitId', message: 'is required with a district or a ward' });
  if (system === 'old' && ward && !district) errors.push({ path: 'districtUnitId', message: 'is required with a ward in the old system' });
  if (errors.length > 0) refuse(errors);
  if (district && district.parentId !== province!.id) {
    errors.push({ path: 'districtUnitId', message: `the district ${district.name} is not in ${province!.name}` });
  }
  const wardParent = system === 'old' ? district : province;
  if (ward && wardParent && ward.parentId !== wardParent.id) {
    errors.push({ path: 'wardUnitId', message: `the ward ${ward.name} is not in ${wardParent.name}` });
  }
  if (errors.length > 0) refuse(errors);

  return {
    geoSystem: system,
    provinceUnitId: province?.id ?? null,
    districtUnitId: district?.id ?? null,
    wardUnitId: ward?.id ?? null,
    provinceName: province?.name ?? null,
    districtName: district?.name ?? null,
    wardName: ward?.name ?? null,
  };
}
