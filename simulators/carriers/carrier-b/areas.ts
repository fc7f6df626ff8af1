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

/** Why an address is not served, or null when it is. */
export function unservedReason(province: string, district: string): string | null {
  const served = servedProvinces.find((candidate) => normalise(candidate.name) === normalise(province));
  if (!served) return `province "${province}" is outside the delivery area`;
  if (!served.districts.some((candidate) => candidate.toLowerCase() === district.toLowerCase().trim())) {
    return `district "${district}" of ${served.name} is outside the delivery area`;
  }
  return null;
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
