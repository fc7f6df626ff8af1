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
 * The codes of the variants a write adds, in order: a sent code as it is (trimmed); an empty one
 * `<product code>-<n>`, n from the variant's position + 1 up to the first free of the product's other
 * codes (`taken`, then each code given here) and the shop's match keys. A derived value is held to its
 * own limit: a product code too long to derive from is 400 on the variant's `code` (send one), never
 * the table's check constraint. The match keys are read a window of suffixes at a time, not a query a code.
 */
export async function variantCodes(
  tx: Tx,
  productCode: string,
  added: readonly { code?: string | undefined; position: number; path: string }[],
  taken: readonly string[],
): Promise<string[]> {
  const used = new Set(taken.map(matchKey));
  const registered = new Set<string>();
  const window = Math.max(64, added.length);
  // Suffixes up to readUpTo are looked up; later variants start past the first one tried.
  let readUpTo: number | undefined;
  const codes: string[] = [];
  for (const variant of added) {
    let code = variant.code?.trim();
    for (let suffix = variant.position + 1; !code; suffix += 1) {
      const candidate = `${productCode}-${suffix}`;
      if (characterCount(candidate) > MAX_CODE_LENGTH)
        throw new Problem(
          'validation-failed',
          `the variant code derived from the product code would be longer than ${MAX_CODE_LENGTH} characters`,
          {
            errors: [
              {
                path: variant.path,
                message: `the derived code "${candidate}" is too long: send a code of at most ${MAX_CODE_LENGTH} characters`,
              },
            ],
          },
        );
      readUpTo ??= suffix - 1;
      while (suffix > readUpTo) {
        const first = readUpTo + 1;
        const keys = Array.from({ length: window }, (_, offset) => matchKey(`${productCode}-${first + offset}`));
        const rows = await tx<{ keyNorm: string }[]>`select key_norm from match_keys where key_norm = any(${keys})`;
        for (const row of rows) registered.add(row.keyNorm);
        readUpTo += window;
      }
      if (!used.has(matchKey(candidate)) && !registered.has(matchKey(candidate))) code = candidate;
    }
    used.add(matchKey(code));
    codes.push(code);
  }
  return codes;
}
