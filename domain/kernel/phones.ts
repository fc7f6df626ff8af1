import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { Problem } from './problems.js';

const SEPARATORS = /[\s.\-()]/g;

/**
 * A Vietnamese phone number as stored and returned: `+84` and digits. Accepts `0…`, `84…` and
 * `+84…`, with spaces, dots and dashes; mobile and landline (`024…`) numbers alike, validated
 * against libphonenumber's full metadata. Anything else, letters included, is 400 `validation-failed`.
 */
export function normalizePhone(input: string, path = 'phone'): string {
  const refuse = () =>
    new Problem('validation-failed', `${JSON.stringify(input)} is not a Vietnamese phone number`, {
      errors: [{ path, message: 'must be a Vietnamese phone number (0…, 84… or +84…)' }],
    });
  const compact = input.trim().replace(SEPARATORS, '');
  if (!/^\+?\d{8,15}$/.test(compact)) throw refuse();
  const international = compact.startsWith('+') ? compact : compact.startsWith('84') && compact.length >= 11 ? `+${compact}` : compact;
  const parsed = parsePhoneNumberFromString(international, 'VN');
  if (!parsed || parsed.country !== 'VN' || !parsed.isValid()) throw refuse();
  return parsed.number;
}
