import { NEW_WARD_TYPE, newSystemWardNames } from '../shared/new-geography.js';
import { vnHour, vnShiftOfDay } from './time.js';

/**
 * The provinces and districts the simulator delivers to (GHTK takes names, not ids), and its
 * price list. Names match whatever their prefix ("TP.", "Thành phố", "Tỉnh") and case.
 */
const servedProvinces: readonly { name: string; districts: readonly string[] }[] = [
  { name: 'Hà Nội', districts: ['Quận Ba Đình', 'Quận Hoàn Kiếm', 'Quận Cầu Giấy', 'Quận Đống Đa', 'Quận Hai Bà Trưng'] },
  { name: 'Hồ Chí Minh', districts: ['Quận 1', 'Quận 3', 'Quận 5', 'Quận Bình Thạnh', 'Quận Tân Bình', 'Thành phố Thủ Đức'] },
  { name: 'Đà Nẵng', districts: ['Quận Hải Châu', 'Quận Thanh Khê', 'Quận Sơn Trà'] },
];

/** Parcels up to 20 kg; heavier goods go by GHTK's separate bulky service. */
export const weightLimitKg = 20;

function normalise(name: string): string {
  return name
    .normalize('NFC')
    .toLowerCase()
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/^(thành phố|tp\.?|tỉnh) /, '');
}

/**
 * The layout since 1 July 2025 (province, ward; no district): every ward of the served provinces,
 * by its official name, which GHTK takes with or without its type word (`Phường Ba Đình`, `Ba Đình`).
 */
const servedNewProvinces = [
  { name: 'Hà Nội', officialCode: '01' },
  { name: 'Hồ Chí Minh', officialCode: '79' },
  { name: 'Đà Nẵng', officialCode: '48' },
].map((province) => ({ name: province.name, wards: newSystemWardNames(province.officialCode) }));

/** Where an order goes, as GHTK understood its names: a district (old layout) or none (the 2025 layout). */
export interface CarrierBDestination {
  province: string;
  district: string | null;
  ward: string | null;
}

/** Why an address is not served, or null when it is. */
export function unservedReason(province: string, district: string): string | null {
  const resolved = destinationOf(province, district, undefined);
  return 'unserved' in resolved ? resolved.unserved : null;
}

/** The served area an address names: with a district the old layout, without one the 2025 layout (its ward required). */
export function destinationOf(
  province: string,
  district: string | undefined,
  ward: string | undefined,
): CarrierBDestination | { unserved: string } {
  const served = servedProvinces.find((candidate) => normalise(candidate.name) === normalise(province));
  if (!served) return { unserved: `province "${province}" is outside the delivery area` };
  if (district !== undefined) {
    const known = served.districts.find((candidate) => candidate.toLowerCase() === district.toLowerCase().trim());
    if (!known) return { unserved: `district "${district}" of ${served.name} is outside the delivery area` };
    return { province: served.name, district: known, ward: ward ?? null };
  }
  const wards = servedNewProvinces.find((candidate) => candidate.name === served.name)?.wards ?? [];
  const bare = (name: string) => normalise(name).replace(NEW_WARD_TYPE, '');
  const named = wards.filter((candidate) => normalise(candidate) === normalise(ward ?? ''));
  const loosely = wards.filter((candidate) => bare(candidate) === bare(ward ?? ''));
  const found = named.length === 1 ? named[0] : loosely.length === 1 ? loosely[0] : undefined;
  if (!found)
    return {
      unserved: `ward "${ward ?? ''}" of ${served.name} is outside the delivery area (an address without a district names a 2025 ward)`,
    };
  return { province: served.name, district: null, ward: found };
}

export function sameProvince(a: string, b: string): boolean {
  return normalise(a) === normalise(b);
}

/** Fee, insurance and the shifts GHTK promises: area 1 within a province, area 2 between provinces. */
export function quote(input: { weightKg: number; value: number; area: 1 | 2; createdAt: Date }) {
  const extraHalfKilos = Math.ceil(Math.max(0, input.weightKg - 0.5) / 0.5);
  const fee = input.area === 1 ? 22_000 + 2_500 * extraHalfKilos : 30_000 + 5_000 * extraHalfKilos;
  const insuranceFee = input.value > 1_000_000 ? Math.round(input.value * 0.005) : 0;
  const morning = vnHour(input.createdAt) < 12;
  return {
    fee,
    insuranceFee,
    estimatedPick: morning ? vnShiftOfDay(input.createdAt, 0, 'Chiều') : vnShiftOfDay(input.createdAt, 1, 'Sáng'),
    estimatedDeliver: vnShiftOfDay(input.createdAt, input.area === 1 ? 1 : 3, 'Chiều'),
  };
}
