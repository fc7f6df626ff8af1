import { describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';

const { db } = useSuite();

/** The pool of db/client.ts (every process's): what a timestamptz parameter holds when it reaches PostgreSQL. */
describe('a timestamptz parameter', () => {
  it('given as the database’s own text keeps its microseconds', async () => {
    const [row] = await db.app<{ same: boolean; sent: string }[]>`
      select ${'2026-11-29 18:03:17.536412+00'}::timestamptz = '2026-11-29 18:03:17.536412+00'::timestamptz as same,
             ${'2026-11-29 18:03:17.536412+00'}::timestamptz::text as sent`;
    expect(row).toEqual({ same: true, sent: '2026-11-29 18:03:17.536412+00' });
  });

  it('given as an ISO time with an offset, or a Date, is that instant; and reads back as a Date', async () => {
    const instant = new Date('2026-11-29T11:03:17.536Z');
    const [row] = await db.app<{ fromText: Date; fromDate: Date }[]>`
      select ${'2026-11-29T18:03:17.536+07:00'}::timestamptz as from_text, ${instant}::timestamptz as from_date`;
    expect(row!.fromText).toEqual(instant);
    expect(row!.fromDate).toEqual(instant);
  });
});
