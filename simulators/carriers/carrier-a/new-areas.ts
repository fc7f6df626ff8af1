import { NEW_WARD_TYPE, newSystemWardNames } from '../shared/new-geography.js';

/**
 * GHN's master data of the layout since 1 July 2025 ("Get Province (New)", "Get Ward (New)", under
 * `/shiip/public-api/v3/master-data`): provinces and their wards, no districts, each with GHN's own
 * id (`_id`), its `name` and `extension_names`. A create with `is_new_to_address: true` names the
 * recipient's province and ward by these names (`to_province_name`, `to_ward_name`). The simulator
 * serves every 2025 ward of the three cities it delivers to; the province ids are those of the old
 * master data, which the cities kept, so fees know a delivery within the shop's province.
 */
export interface CarrierANewWard {
  id: number;
  name: string;
  extensionNames: readonly string[];
}

export interface CarrierANewProvince {
  id: number;
  name: string;
  extensionNames: readonly string[];
  wards: readonly CarrierANewWard[];
}

const SERVED = [
  { id: 201, officialCode: '01', name: 'Hà Nội', extensionNames: ['Thành phố Hà Nội', 'TP. Hà Nội', 'HN'] },
  { id: 202, officialCode: '79', name: 'Hồ Chí Minh', extensionNames: ['Thành phố Hồ Chí Minh', 'TP. Hồ Chí Minh', 'Sài Gòn', 'HCM'] },
  { id: 203, officialCode: '48', name: 'Đà Nẵng', extensionNames: ['Thành phố Đà Nẵng', 'TP. Đà Nẵng'] },
] as const;

/** GHN's other spellings of a ward: without its type word, and abbreviated (`Ba Đình`, `P. Ba Đình`). */
function wardExtensions(name: string): string[] {
  const type = NEW_WARD_TYPE.exec(name)?.[1];
  const bare = name.replace(NEW_WARD_TYPE, '');
  return type ? [bare, `${type.charAt(0).toUpperCase()}. ${bare}`] : [];
}

export const carrierANewProvinces: readonly CarrierANewProvince[] = SERVED.map((province) => ({
  id: province.id,
  name: province.name,
  extensionNames: province.extensionNames,
  wards: newSystemWardNames(province.officialCode).map((name, i) => ({
    id: province.id * 100_000 + i + 1,
    name,
    extensionNames: wardExtensions(name),
  })),
}));

const spelled = (candidate: { name: string; extensionNames: readonly string[] }, name: string) =>
  [candidate.name, ...candidate.extensionNames].some((known) => known.toLocaleLowerCase('vi') === name.trim().toLocaleLowerCase('vi'));

/** The province and ward a new-layout create names, or why GHN refuses it (its `code_message`). */
export function findNewArea(
  provinceName: string,
  wardName: string,
): { province: CarrierANewProvince; ward: CarrierANewWard } | { refused: string; codeMessage: string } {
  const province = carrierANewProvinces.find((candidate) => spelled(candidate, provinceName));
  if (!province) return { refused: `to_province_name "${provinceName}" is outside the delivery area`, codeMessage: 'ADDRESS_NOT_SERVED' };
  const ward = province.wards.find((candidate) => spelled(candidate, wardName));
  if (!ward) return { refused: `to_ward_name "${wardName}" is not a ward of ${province.name}`, codeMessage: 'WARD_IS_INVALID' };
  return { province, ward };
}
