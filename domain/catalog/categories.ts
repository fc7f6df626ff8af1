import type { Named, Tx } from '../kernel/index.js';

export async function listCategories(tx: Tx): Promise<Named[]> {
  return [...(await tx<Named[]>`select id, name from categories order by lower(unaccent(name)), name, id`)];
}
