import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, toPage } from '../../domain/kernel/listing.js';

const binding = { secret: 'test-secret', scope: { list: 'customers', shop: 's1', limit: 50, search: 'lan' } };
const position = { sortKey: '2026-11-22 10:00:00.123456+00', id: '0b6c2c3e-1f7e-4c35-9a55-2f8f1e0b7a11' };

describe('cursors', () => {
  it('round-trips a position with microseconds intact and looks opaque', () => {
    const cursor = encodeCursor(position, binding);
    expect(cursor).not.toContain('2026');
    expect(decodeCursor(cursor, binding)).toEqual(position);
  });

  it('refuses a cursor used with other parameters', () => {
    const cursor = encodeCursor(position, binding);
    expect(() => decodeCursor(cursor, { ...binding, scope: { ...binding.scope, search: 'mai' } })).toThrow(
      expect.objectContaining({ code: 'invalid-cursor' }),
    );
    expect(() => decodeCursor(cursor, { ...binding, scope: { ...binding.scope, shop: 's2' } })).toThrow(
      expect.objectContaining({ code: 'invalid-cursor' }),
    );
  });

  it('refuses a forged or damaged cursor', () => {
    const cursor = encodeCursor(position, binding);
    const [payload, signature] = cursor.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ k: '1970-01-01 00:00:00+00', i: position.id, s: 'x' })).toString('base64url');
    for (const bad of [`${forgedPayload}.${signature}`, `${payload}.${signature!.slice(1)}x`, 'garbage', `${cursor}.more`, `${payload}`]) {
      expect(() => decodeCursor(bad, binding), bad).toThrow(expect.objectContaining({ code: 'invalid-cursor' }));
    }
    expect(() => decodeCursor(cursor, { ...binding, secret: 'another-secret' })).toThrow(
      expect.objectContaining({ code: 'invalid-cursor' }),
    );
  });

  it('gives a next cursor only when a row beyond the limit exists', () => {
    const rows = [1, 2, 3].map((n) => ({ id: `id-${n}`, sortKey: `t${n}` }));
    const full = toPage(
      rows,
      2,
      binding,
      (row) => row,
      (row) => row.id,
    );
    expect(full.data).toEqual(['id-1', 'id-2']);
    expect(decodeCursor(full.nextCursor!, binding)).toEqual({ id: 'id-2', sortKey: 't2' });
    expect(
      toPage(
        rows,
        3,
        binding,
        (row) => row,
        (row) => row.id,
      ).nextCursor,
    ).toBeNull();
  });
});
