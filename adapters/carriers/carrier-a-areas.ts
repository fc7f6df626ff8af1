import { z } from 'zod';
import { CarrierError } from './carrier-adapter.js';
import { callCarrier, readAnswer, type CarrierTransport } from './carrier-http.js';

/**
 * Carrier A's create takes GHN's own `to_district_id` and `to_ward_code`; an address has names.
 * As GHN integrators do, the names are looked up in its master data (provinces, the districts of a
 * province, the wards of a district), each list cached per base URL for an hour: master data
 * changes a few times a year, and a push should not cost three more calls. An address of the 2025
 * layout (province, ward) is looked up in GHN's new master data (`/v3`: provinces, the wards of a
 * province), and the create names GHN's own province and ward with `is_new_to_address`.
 */
const MASTER_DATA = '/shiip/public-api/master-data';
const NEW_MASTER_DATA = '/shiip/public-api/v3/master-data';
/** The new master data is paged; a page this long asks for the next (a province has a few hundred wards at most). */
const NEW_PAGE = 200;
const NEW_MAX_PAGES = 20;
export const MASTER_DATA_CACHE_MS = 60 * 60_000;

const extension = z.array(z.string()).nullish();
const listOf = <Item extends z.ZodType>(item: Item) =>
  z.object({
    code: z.literal(200),
    data: z
      .array(item)
      .nullable()
      .transform((data) => data ?? []),
  });
const provinceList = listOf(z.object({ ProvinceID: z.number().int(), ProvinceName: z.string(), NameExtension: extension }));
const districtList = listOf(z.object({ DistrictID: z.number().int(), DistrictName: z.string(), NameExtension: extension }));
const wardList = listOf(
  z.object({ WardCode: z.union([z.string(), z.number()]).transform(String), WardName: z.string(), NameExtension: extension }),
);
const newAreaList = listOf(z.object({ _id: z.number().int(), name: z.string(), extension_names: extension }));

interface Area<Id> {
  id: Id;
  name: string;
  /** `matchKey` of the name and of every `NameExtension`. */
  keys: Set<string>;
}

const cache = new Map<string, { loadedAt: number; areas: Promise<Area<unknown>[]> }>();

/** A list from the cache, or loaded; a failed load is not kept, so the next push asks again. */
function cached<Id>(key: string, load: () => Promise<Area<Id>[]>): Promise<Area<Id>[]> {
  const hit = cache.get(key);
  if (hit && Date.now() - hit.loadedAt < MASTER_DATA_CACHE_MS) return hit.areas as Promise<Area<Id>[]>;
  const areas = load();
  cache.set(key, { loadedAt: Date.now(), areas });
  areas.catch(() => {
    if (cache.get(key)?.areas === areas) cache.delete(key);
  });
  return areas;
}

/** The type word a name may start with, without diacritics, or its abbreviation: `Thành phố`, `TP.`, `Quận`, `Q.`, `Phường`, `P.`, `Đặc khu`, … */
const TYPE_PREFIX = /^(thanh pho|tp|tinh|quan|q|huyen|h|thi xa|tx|thi tran|tt|phuong|p|xa|x|dac khu)\b\s*/;

/**
 * What two spellings of one area have in common: no diacritics, case, punctuation, spaces, type
 * word or leading zeros (`Phường 09` and `P. 9`, `TP. Hồ Chí Minh` and `Hồ Chí Minh`).
 */
export function matchKey(name: string): string {
  const plain = name
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace(/[đĐ]/g, 'd')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return plain
    .replace(TYPE_PREFIX, '')
    .replace(/\b0+(\d)/g, '$1')
    .replace(/\s+/g, '');
}

function area<Id>(id: Id, name: string, extensions: readonly string[] | null | undefined): Area<Id> {
  return { id, name, keys: new Set([name, ...(extensions ?? [])].map(matchKey)) };
}

function pick<Id>(areas: Area<Id>[], name: string, what: string): Area<Id> {
  const key = matchKey(name);
  const found = areas.find((candidate) => candidate.keys.has(key));
  if (!found) throw new CarrierError('rejected', `carrier A does not deliver to the ${what} "${name}": it is not in its master data`);
  return found;
}

/** The recipient's GHN district id and ward code, from the address's names. */
export async function carrierAArea(
  connection: { baseUrl: string; token: string; transport: CarrierTransport },
  address: { province: string; district: string; ward: string | null },
): Promise<{ districtId: number; wardCode: string }> {
  const list = async <T>(path: string, schema: z.ZodType<{ data: T[] }>, what: string): Promise<T[]> => {
    const url = new URL(`${MASTER_DATA}/${path}`, connection.baseUrl).toString();
    const answer = await callCarrier('GET', url, connection.transport, { headers: { Token: connection.token } });
    return readAnswer(schema, answer, what).data;
  };
  const key = (what: string) => `${connection.baseUrl} ${what}`;

  const provinces = await cached(key('provinces'), async () =>
    (await list('province', provinceList, 'province list')).map((p) => area(p.ProvinceID, p.ProvinceName, p.NameExtension)),
  );
  const province = pick(provinces, address.province, 'province');
  const districts = await cached(key(`districts of ${province.id}`), async () =>
    (await list(`district?province_id=${province.id}`, districtList, 'district list')).map((d) =>
      area(d.DistrictID, d.DistrictName, d.NameExtension),
    ),
  );
  const district = pick(districts, address.district, `district of ${province.name}`);
  if (!address.ward) throw new CarrierError('rejected', "carrier A needs the recipient's ward, and the address has none");
  const wards = await cached(key(`wards of ${district.id}`), async () =>
    (await list(`ward?district_id=${district.id}`, wardList, 'ward list')).map((w) => area(w.WardCode, w.WardName, w.NameExtension)),
  );
  const ward = pick(wards, address.ward, `ward of ${district.name}, ${province.name}`);
  return { districtId: district.id, wardCode: ward.id };
}

/** The recipient's province and ward in GHN's 2025 master data, from the address's names: GHN's own names, for its create. */
export async function carrierANewArea(
  connection: { baseUrl: string; token: string; transport: CarrierTransport },
  address: { province: string; ward: string },
): Promise<{ provinceName: string; wardName: string }> {
  const pages = async (path: string, query: Record<string, number>, what: string) => {
    const url = new URL(`${NEW_MASTER_DATA}/${path}`, connection.baseUrl).toString();
    const all: z.infer<typeof newAreaList>['data'] = [];
    for (let page = 0; page < NEW_MAX_PAGES; page++) {
      const body = { ...query, offset: page * NEW_PAGE, limit: NEW_PAGE };
      const answer = await callCarrier('POST', url, connection.transport, { headers: { Token: connection.token }, body });
      const data = readAnswer(newAreaList, answer, what).data;
      all.push(...data);
      if (data.length < NEW_PAGE) return all.map((unit) => area(unit._id, unit.name, unit.extension_names));
    }
    throw new CarrierError('unavailable', `the carrier's ${what} does not end after ${NEW_MAX_PAGES} pages`);
  };
  const key = (what: string) => `${connection.baseUrl} ${what}`;

  const provinces = await cached(key('new provinces'), () => pages('province/all', {}, 'new province list'));
  const province = pick(provinces, address.province, 'province (2025 layout)');
  const wards = await cached(key(`new wards of ${province.id}`), () =>
    pages('ward/all-by-province-id', { province_id: province.id }, 'new ward list'),
  );
  const ward = pick(wards, address.ward, `ward of ${province.name} (2025 layout)`);
  return { provinceName: province.name, wardName: ward.name };
}
