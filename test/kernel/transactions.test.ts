import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writeShopLog } from '../../domain/access/index.js';
import { allAnswered, pipelined, withShop } from '../../domain/kernel/index.js';
import { useSuite } from '../support/suite.js';

const { db, shop } = useSuite({ shop: true });

/**
 * Work sent together in one shop transaction (`allAnswered`, `pipelined`): a part that fails ends the
 * transaction only once every other part has finished. postgres.js hands the connection back to the
 * pool at a transaction's end: a statement another part sent after it would run outside it (refused
 * by row-level security, or inside whatever transaction took the connection next).
 */
describe('work sent together in a transaction', () => {
  const logged = async (subjectId: string) => (await db.admin`select 1 from shop_log where subject_id = ${subjectId}`).length;

  /** A part that writes after a pause, beside a part that fails at once; how the write ended. */
  async function refusedWhileAnotherPartWrites(together: (refusal: Promise<unknown>, write: Promise<string>) => Promise<unknown>) {
    const subjectId = randomUUID();
    let write: Promise<string> | undefined;
    const transaction = withShop(db.app, shop.shopId, (tx) => {
      write = (async () => {
        await tx`select pg_sleep(0.05)`;
        await writeShopLog(tx, { shopId: shop.shopId, actorUserId: null, action: 'test.together', subjectType: 'test', subjectId });
        return 'written';
      })().catch((error: unknown) => `failed: ${(error as Error).message}`);
      const refusal = tx`select 1`.then(() => {
        throw new Error('refused');
      });
      return together(refusal, write);
    });
    await expect(transaction).rejects.toThrow('refused');
    return { write: await write!, logged: await logged(subjectId) };
  }

  it('allAnswered: the other part writes inside the transaction, and its write is rolled back with it', async () => {
    expect(await refusedWhileAnotherPartWrites((refusal, write) => allAnswered([refusal, write]))).toEqual({ write: 'written', logged: 0 });
  });

  it('pipelined: when the first statement fails, the rest of the work finishes before the rollback', async () => {
    let finished = false;
    const transaction = withShop(db.app, shop.shopId, (tx) =>
      pipelined(tx`select 1 / 0`, async () => {
        // Work that goes on for a while after the failure, then sends a statement (refused: the transaction is aborted).
        await new Promise((resolve) => setTimeout(resolve, 50));
        await tx`select 1`.catch(() => undefined);
        finished = true;
      }),
    );
    await expect(transaction).rejects.toThrow(/division by zero/);
    expect(finished).toBe(true);
  });
});
