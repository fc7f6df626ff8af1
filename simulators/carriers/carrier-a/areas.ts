/**
 * The few GHN districts and wards the simulator serves (ids in GHN's own numbering), and its price
 * list. Anything else is refused as an area the carrier does not serve.
 */
export interface CarrierADistrict {
  id: number;
  name: string;
  provinceId: number;
  wardCodes: readonly string[];
}

function wards(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(2, '0')}`);
}

export const carrierADistricts: readonly CarrierADistrict[] = [
  { id: 1442, name: 'Quận 1', provinceId: 202, wardCodes: wards('201', 10) },
  { id: 1444, name: 'Quận 3', provinceId: 202, wardCodes: wards('203', 14) },
  { id: 1484, name: 'Quận Ba Đình', provinceId: 201, wardCodes: wards('1A01', 14) },
  { id: 1526, name: 'Quận Hải Châu', provinceId: 203, wardCodes: wards('401', 13) },
];

/** Light parcels (service type 2) up to 20 kg; heavy ones (service type 5) up to 50 kg. */
export const weightLimitGrams = { 2: 20_000, 5: 50_000 } as const;

export interface CarrierAFee {
  main_service: number;
  insurance: number;
  cod_fee: number;
  station_do: number;
  station_pu: number;
  return: number;
  r2s: number;
  coupon: number;
  cod_failed_fee: number;
}

export function findDistrict(id: number): CarrierADistrict | undefined {
  return carrierADistricts.find((district) => district.id === id);
}

/** The fee and lead time: cheaper and faster within one province. */
export function quote(input: { weight: number; insuranceValue: number; sameProvince: boolean; createdAt: Date }): {
  fee: CarrierAFee;
  totalFee: number;
  expectedDelivery: Date;
} {
  const extraHalfKilos = Math.ceil(Math.max(0, input.weight - 500) / 500);
  const mainService = input.sameProvince ? 16_500 + 2_500 * extraHalfKilos : 29_000 + 5_000 * extraHalfKilos;
  const insurance = input.insuranceValue > 1_000_000 ? Math.round(input.insuranceValue * 0.005) : 0;
  const fee: CarrierAFee = {
    main_service: mainService,
    insurance,
    cod_fee: 0,
    station_do: 0,
    station_pu: 0,
    return: 0,
    r2s: 0,
    coupon: 0,
    cod_failed_fee: 0,
  };
  const expectedDelivery = new Date(input.createdAt);
  expectedDelivery.setUTCDate(expectedDelivery.getUTCDate() + (input.sameProvince ? 1 : 3));
  // GHN promises a day: its end in Vietnam (23:59:59 at UTC+7).
  expectedDelivery.setUTCHours(16, 59, 59, 0);
  return { fee, totalFee: Object.values(fee).reduce((sum, part) => sum + part, 0), expectedDelivery };
}
