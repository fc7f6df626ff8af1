import { z } from 'zod';

export const Timestamp = z
  .string()
  .describe('ISO 8601 UTC')
  .meta({ format: 'date-time', examples: ['2025-03-14T09:30:00.000Z'] });

/** Years 1000 to 9998: PostgreSQL refuses year 0, and an offset can carry 9999-12-31 past year 9999 (both were 500s). */
const STORABLE_YEAR = /^(?:[1-8]\d{3}|9(?:[0-8]\d\d|9(?:[0-8]\d|9[0-8])))-/;
const STORABLE_YEAR_MESSAGE = 'must be in the years 1000 to 9998';
/**
 * The year rule as a refinement, told to the document as the one `pattern` beside the `format`: a
 * second regex would make the document an `allOf` of patterns without a format, which generators
 * type as an untyped value instead of a date.
 */
const storableYear = { pattern: STORABLE_YEAR.source } as const;
const isStorableYear = (value: string) => STORABLE_YEAR.test(value);
/** A timestamp as sent: ISO 8601 with `Z` or an offset. */
export const TimestampInput = z.iso
  .datetime({ offset: true })
  .refine(isStorableYear, STORABLE_YEAR_MESSAGE)
  .meta({ ...storableYear, examples: ['2025-03-14T16:30:00+07:00'] });
/** A calendar date as sent: `YYYY-MM-DD`. */
export const CalendarDate = z.iso
  .date()
  .refine(isStorableYear, STORABLE_YEAR_MESSAGE)
  .meta({ ...storableYear, examples: ['1990-05-17'] });
/** A calendar date as answered: `YYYY-MM-DD`. */
export const DateString = z.string().meta({ format: 'date', examples: ['1990-05-17'] });

/**
 * A Vietnamese phone number as sent (domain/kernel/phones.ts): `0` or `(+)84`, then 9 or 10 digits, with
 * spaces, dots, dashes and brackets anywhere. Whether the number exists is still the domain's call.
 */
export const PhoneInput = z
  .string()
  .max(40)
  .regex(/^[\s.()-]*(?:\+?[\s.()-]*8[\s.()-]*4|0)(?:[\s.()-]*\d){9,10}[\s.()-]*$/, 'must be a Vietnamese phone number (0…, 84… or +84…)')
  .meta({ examples: ['0912345678', '+84 912 345 678'] });
/** …or an empty string, read as none (an order's buyer or recipient). */
export const PhoneOrEmpty = z.union([PhoneInput, z.literal('')]);

/**
 * A text's length as JSON Schema's `maxLength` and PostgreSQL's `char_length` count it: in code
 * points. `String.length` counts UTF-16 units, so an emoji is two and a limit checked with it
 * refuses text the document allows.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** What `trim().min(1)` lets through, told to the document: a character other than white space. */
export const NOT_BLANK = { pattern: '\\S' } as const;

/**
 * Decimal strings as sent, sized to their numeric(p, 3) columns so PostgreSQL never rounds or
 * overflows: at most three decimals, and at most p − 3 integer digits.
 */
function decimalString(integerDigits: number, signed: boolean, example: string) {
  const pattern = new RegExp(`^${signed ? '-?' : ''}\\d{1,${integerDigits}}(\\.\\d{1,3})?$`);
  const kind = signed ? 'a decimal string' : 'a non-negative decimal string';
  return z
    .string()
    .regex(pattern, `must be ${kind} with at most ${integerDigits} digits before the point and 3 after, such as "120000" or "1.5"`)
    .meta({ examples: [example] });
}

/** A signed decimal of a numeric(18, 3) column (a stock adjustment). */
export const SignedDecimal = decimalString(15, true, '-2');
/** Money or a quantity of a numeric(18, 3) column: ≥ 0. */
export const Amount = decimalString(15, false, '150000');
/** An amount greater than zero (order line quantities, payments). */
export const PositiveAmount = Amount.refine((value) => /[1-9]/.test(value), 'must be greater than 0').meta({
  not: { pattern: '^0+(\\.0+)?$' },
});
/**
 * A decimal as answered (money, quantities, measures): PostgreSQL's numeric as text without trailing
 * zeros (the `api_decimal` function), never binary floating point.
 */
export const Decimal = z
  .string()
  .describe('Decimal string (money, quantity or measure), without trailing zeros; keep it as a string or an exact decimal')
  .meta({ pattern: '^-?\\d+(\\.\\d+)?$', examples: ['150000'] });
/** A weight in grams, numeric(12, 3): ≥ 0. */
export const Weight = decimalString(9, false, '350');
/** A length in centimetres, numeric(10, 3): ≥ 0. */
export const Dimension = decimalString(7, false, '25.5');

export const IdParams = z.object({ id: z.uuid() });

/** The answer of a 204: no body (`type: null` in the document; typed void, as the handler sends no payload). */
export const NoContent = z.null().describe('No content') as unknown as z.ZodType<void>;

/** Names 255 characters, notes and messages 5,000 (DESIGN.md, limits). */
export const Name = z.string().trim().min(1).max(255).meta(NOT_BLANK);
export const Note = z.string().max(5000);

export const AddressSchema = z
  .object({
    recipientName: z.string().nullable(),
    recipientPhone: z.string().nullable(),
    addressLine: z.string().nullable(),
    geoSystem: z.enum(['old', 'new']).nullable(),
    provinceUnitId: z.uuid().nullable(),
    districtUnitId: z.uuid().nullable(),
    wardUnitId: z.uuid().nullable(),
    provinceName: z.string().nullable(),
    districtName: z.string().nullable(),
    wardName: z.string().nullable(),
  })
  .meta({ id: 'Address' });

/** Address fields as sent (an order's shipping address): all optional, unit ids from `GET /geo/units`. */
export const AddressInput = z.strictObject({
  recipientName: z.string().max(255).nullish(),
  recipientPhone: PhoneOrEmpty.nullish(),
  addressLine: z.string().max(500).nullish(),
  geoSystem: z.enum(['old', 'new']).nullish(),
  provinceUnitId: z.uuid().nullish(),
  districtUnitId: z.uuid().nullish(),
  wardUnitId: z.uuid().nullish(),
  provinceName: z.string().max(255).nullish(),
  districtName: z.string().max(255).nullish(),
  wardName: z.string().max(255).nullish(),
});

/** A customer's delivery address needs its address line. */
export const CustomerAddressInput = AddressInput.extend({ addressLine: z.string().trim().min(1).max(500).meta(NOT_BLANK) });
