import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { normalizePhone } from '../../domain/kernel/phones.js';

/** Real Vietnamese mobile prefixes (after the trunk 0) and the Hanoi landline prefix 24. */
const MOBILE_PREFIXES = [
  '32',
  '33',
  '34',
  '35',
  '36',
  '37',
  '38',
  '39',
  '56',
  '58',
  '70',
  '76',
  '77',
  '78',
  '79',
  '81',
  '82',
  '83',
  '84',
  '85',
  '86',
  '88',
  '90',
  '91',
  '93',
  '94',
  '96',
  '97',
  '98',
];

const nationalNumber = fc.oneof(
  fc.tuple(fc.constantFrom(...MOBILE_PREFIXES), fc.stringMatching(/^\d{7}$/)).map(([prefix, rest]) => `${prefix}${rest}`),
  fc.stringMatching(/^3\d{7}$/).map((rest) => `24${rest}`),
);

/** The same number written as people write it: 0…, 84… or +84…, grouped with spaces, dots or dashes. */
const written = fc
  .tuple(
    nationalNumber,
    fc.constantFrom('0', '84', '+84', '+84 ', '(+84) '),
    fc.constantFrom('', ' ', '.', '-'),
    fc.integer({ min: 2, max: 4 }),
  )
  .map(([national, prefix, separator, group]) => ({
    national,
    text: prefix + (national.match(new RegExp(`.{1,${group}}`, 'g')) ?? []).join(separator),
  }));

describe('phone normalisation', () => {
  it('turns every accepted way of writing a number into the same +84 form', () => {
    fc.assert(
      fc.property(written, ({ national, text }) => {
        expect(normalizePhone(text)).toBe(`+84${national}`);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent', () => {
    fc.assert(fc.property(written, ({ text }) => normalizePhone(normalizePhone(text)) === normalizePhone(text)));
  });

  it('refuses any number with a letter in it', () => {
    fc.assert(
      fc.property(written, fc.nat(), fc.constantFrom(...'abcxyzOlIAZ'), ({ text }, at, letter) => {
        const index = at % (text.length + 1);
        const withLetter = text.slice(0, index) + letter + text.slice(index);
        expect(() => normalizePhone(withLetter)).toThrow(expect.objectContaining({ code: 'validation-failed' }));
      }),
      { numRuns: 300 },
    );
  });

  it('accepts the examples of the spec and refuses foreign or short numbers', () => {
    expect(normalizePhone('0901 234 567')).toBe('+84901234567');
    expect(normalizePhone('84.901.234.567')).toBe('+84901234567');
    expect(normalizePhone('+84-901-234-567')).toBe('+84901234567');
    expect(normalizePhone('024 3826 4567')).toBe('+842438264567');
    for (const bad of ['+1 415 555 0100', '0901', '', '09012345678901234', '+84 123']) {
      expect(() => normalizePhone(bad), bad).toThrow(expect.objectContaining({ code: 'validation-failed' }));
    }
  });
});
