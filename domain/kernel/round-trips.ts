import type postgres from 'postgres';

/**
 * Sends `first` without waiting for its answer, then runs `next` on the same connection: PostgreSQL
 * runs its statements in order, so `next` sees what `first` wrote or locked, and a round trip is
 * saved. Should `first` fail, the transaction is aborted and `next` fails too.
 */
export async function pipelined<T>(first: postgres.PendingQuery<postgres.Row[]>, next: () => Promise<T>): Promise<T> {
  const [, result] = await allAnswered([first.execute(), next()] as const);
  return result;
}

/**
 * The results of work sent together in one transaction, once every part has finished: a failure is
 * thrown only then, the first in `work`'s order. Throwing at the first failure would end the
 * transaction while another part may still send statements, which would then run after it, outside
 * any transaction (postgres.js hands the connection back to the pool at its end).
 */
export async function allAnswered<const T extends readonly unknown[]>(work: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(work);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
