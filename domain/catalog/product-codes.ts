import { randomBytes } from 'node:crypto';
import { characterCount, Problem, type Tx } from '../kernel/index.js';
import { matchKey, MAX_CODE_LENGTH } from './product-rules.js';

/** `SP` and 8 random hex digits, the first free in the shop's match keys. */
export async function generateProductCode(tx: Tx): Promise<string> {
  for (;;) {
    const code = `SP${randomBytes(4).toString('hex').toUpperCase()}`;
    const [taken] = await tx`select 1 from match_keys where key_norm = ${matchKey(code)} limit 1`;
    if (!taken) return code;
  }
}

/**
 * `<product code>-<n>`, the first free. A derived value is held to its own limit: a product code too
 * long to derive from is 400 on the variant's `code` (send one), never the table's check constraint.
 */
export async function generateVariantCode(tx: Tx, productCode: string, position: number, taken: string[], path: string): Promise<string> {
  for (let suffix = position + 1; ; suffix += 1) {
    const code = `${productCode}-${suffix}`;
    if (characterCount(code) > MAX_CODE_LENGTH)
      throw new Problem(
        'validation-failed',
        `the variant code derived from the product code would be longer than ${MAX_CODE_LENGTH} characters`,
        {
          errors: [{ path, message: `the derived code "${code}" is too long: send a code of at most ${MAX_CODE_LENGTH} characters` }],
        },
      );
    if (taken.some((existing) => matchKey(existing) === matchKey(code))) continue;
    const [used] = await tx`select 1 from match_keys where key_norm = ${matchKey(code)} limit 1`;
    if (!used) return code;
  }
}
