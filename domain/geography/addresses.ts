import { resolveAddressUnits, type AddressUnits, type AddressUnitsInput } from './geography.js';
import { normalizePhone } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';

/** Address fields as sent (spec, Address): all optional, unit ids from `GET /geo/units`. */
export interface AddressInput extends AddressUnitsInput {
  recipientName?: string | null | undefined;
  recipientPhone?: string | null | undefined;
  addressLine?: string | null | undefined;
  provinceName?: string | null | undefined;
  districtName?: string | null | undefined;
  wardName?: string | null | undefined;
}

export interface Address extends AddressUnits {
  recipientName: string | null;
  recipientPhone: string | null;
  addressLine: string | null;
}

/**
 * An address as stored, for customers and orders alike: phone normalised, unit ids checked against
 * the tree, `geoSystem` inferred, unit names taken from the units (the text names otherwise).
 * `path` prefixes the field paths of validation errors (`shippingAddress.`).
 */
export async function normalizeAddress(tx: Tx, input: AddressInput, path = ''): Promise<Address> {
  const units = await resolveAddressUnits(tx, input, path);
  return {
    recipientName: input.recipientName?.trim() || null,
    recipientPhone: input.recipientPhone ? normalizePhone(input.recipientPhone, `${path}recipientPhone`) : null,
    addressLine: input.addressLine?.trim() || null,
    geoSystem: units.geoSystem,
    provinceUnitId: units.provinceUnitId,
    districtUnitId: units.districtUnitId,
    wardUnitId: units.wardUnitId,
    provinceName: units.provinceName ?? input.provinceName ?? null,
    districtName: units.districtName ?? input.districtName ?? null,
    wardName: units.wardName ?? input.wardName ?? null,
  };
}
