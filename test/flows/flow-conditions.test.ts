import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileCondition,
  ConditionReading,
  flowConditionSchema,
  type ConditionRule,
  type ConditionSubject,
  type FlowCondition,
} from '../../domain/flows/flow-conditions.js';

/**
 * The Condition block's evaluator against a reference written apart from it, on random envelopes and
 * conditions; then the rules as shop admins write them.
 */

/** A condition compiled once, run on a subject as the relay runs it: through a reading of the event. */
function compile(condition: FlowCondition): (subject: ConditionSubject) => boolean {
  const test = compileCondition(condition);
  return (subject) => test(new ConditionReading(subject));
}

/** The reference: walks the path recursively, compares with plain numbers. */
function referenceHolds(condition: FlowCondition, subject: ConditionSubject): boolean {
  const walk = (value: unknown, names: string[]): unknown[] => {
    if (Array.isArray(value)) return value.flatMap((item) => walk(item, names));
    if (names.length === 0) return value === null || value === undefined ? [] : [value];
    if (typeof value !== 'object' || value === null) return [];
    return walk((value as Record<string, unknown>)[names[0]!], names.slice(1));
  };
  const decimal = (value: unknown) =>
    typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : null;
  const order = (left: unknown, right: unknown): number | null => {
    const [a, b] = [decimal(left), decimal(right)];
    if (a !== null && b !== null) return Math.sign(a - b);
    if ((typeof left === 'string' && typeof right === 'string') || (typeof left === 'boolean' && typeof right === 'boolean'))
      return left === right ? 0 : String(left) < String(right) ? -1 : 1;
    return null;
  };
  const rule = (r: ConditionRule): boolean => {
    const [root, ...names] = r.path.split('.');
    const values = walk(root === 'data' ? subject.data : subject.changes, names);
    if (r.operator === 'missing') return values.length === 0;
    if (r.operator === 'exists') return values.length > 0;
    const compared = (value: unknown, check: (o: number) => boolean) => {
      const o = 'value' in r && !Array.isArray(r.value) ? order(value, r.value) : null;
      return o !== null && check(o);
    };
    return values.some((value) => {
      switch (r.operator) {
        case 'eq':
          return compared(value, (o) => o === 0);
        case 'ne':
          return compared(value, (o) => o !== 0);
        case 'gt':
          return compared(value, (o) => o > 0);
        case 'gte':
          return compared(value, (o) => o >= 0);
        case 'lt':
          return compared(value, (o) => o < 0);
        case 'lte':
          return compared(value, (o) => o <= 0);
        case 'in':
          return r.value.some((candidate) => order(value, candidate) === 0);
        case 'notIn':
          return r.value.every((candidate) => order(value, candidate) !== 0);
        case 'contains':
          return typeof value === 'string' && value.indexOf(r.value) >= 0;
      }
    });
  };
  return condition.match === 'all' ? condition.rules.every(rule) : condition.rules.some(rule);
}

const NAMES = ['a', 'b', 'c'];
const scalar = fc.constantFrom<string | number | boolean>('x', 'y', 'xy', '10', '2.50', '2.5', '-3', 0, 1, 2.5, 10, -3, true, false);
const leaf = fc.oneof(scalar, fc.constant(null));
const tree = fc.letrec<{ node: unknown; object: Record<string, unknown> }>((of) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    of('object'),
    fc.array(fc.oneof(leaf, of('object')), { maxLength: 3 }),
  ),
  object: fc.dictionary(fc.constantFrom(...NAMES), of('node'), { maxKeys: 3 }),
}));
const path = fc
  .tuple(fc.constantFrom('data', 'changes'), fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 }))
  .map(([root, names]) => [root, ...names].join('.'));
const number = fc.constantFrom<string | number>(0, 1, 2.5, 10, -3, '2.50', '10');
const ruleOf: fc.Arbitrary<ConditionRule> = fc.oneof(
  fc.record({ path, operator: fc.constantFrom('eq' as const, 'ne' as const), value: scalar }),
  fc.record({ path, operator: fc.constant('contains' as const), value: fc.constantFrom('x', 'y', '1') }),
  fc.record({ path, operator: fc.constantFrom('gt' as const, 'gte' as const, 'lt' as const, 'lte' as const), value: number }),
  fc.record({ path, operator: fc.constantFrom('in' as const, 'notIn' as const), value: fc.array(scalar, { minLength: 1, maxLength: 3 }) }),
  fc.record({ path, operator: fc.constantFrom('exists' as const, 'missing' as const) }),
);
const conditionOf = fc.record({
  match: fc.constantFrom('all' as const, 'any' as const),
  rules: fc.array(ruleOf, { minLength: 1, maxLength: 5 }),
});

describe('the condition evaluator', () => {
  it('agrees with the reference on random envelopes and conditions', () => {
    fc.assert(
      fc.property(conditionOf, tree.object, tree.object, (condition, data, changes) => {
        expect(flowConditionSchema.parse(condition)).toEqual(condition);
        expect(compile(condition)({ data, changes })).toBe(referenceHolds(condition, { data, changes }));
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads rules as a shop admin writes them', () => {
    const shippedOnFacebook = compile({
      match: 'all',
      rules: [
        { path: 'changes.status.to', operator: 'eq', value: 'shipped' },
        { path: 'data.salesChannel.code', operator: 'eq', value: 'facebook' },
      ],
    });
    const order = { totalAmount: '1250000.00', salesChannel: { code: 'facebook' }, lines: [{ sku: 'AO-01' }, { sku: 'QUAN-02' }] };
    expect(shippedOnFacebook({ data: order, changes: { fields: ['status'], status: { from: 'packing', to: 'shipped' } } })).toBe(true);
    expect(shippedOnFacebook({ data: order, changes: { fields: ['note'] } })).toBe(false);
    expect(shippedOnFacebook({ data: { ...order, salesChannel: { code: 'pos' } }, changes: { status: { to: 'shipped' } } })).toBe(false);

    const big = compile({ match: 'all', rules: [{ path: 'data.totalAmount', operator: 'gte', value: 1_000_000 }] });
    expect([big({ data: order }), big({ data: { totalAmount: '999999.99' } }), big({ data: {} })]).toEqual([true, false, false]);

    const anyLine = compile({ match: 'any', rules: [{ path: 'data.lines.sku', operator: 'in', value: ['QUAN-02', 'X'] }] });
    expect([anyLine({ data: order }), anyLine({ data: { lines: [] } })]).toEqual([true, false]);
    const statusChanged = compile({ match: 'all', rules: [{ path: 'changes.fields', operator: 'eq', value: 'status' }] });
    expect([statusChanged({ data: {}, changes: { fields: ['note', 'status'] } }), statusChanged({ data: {} })]).toEqual([true, false]);
    const noNote = compile({ match: 'all', rules: [{ path: 'data.note', operator: 'missing' }] });
    expect([noNote({ data: { note: null } }), noNote({ data: { note: 'gói quà' } })]).toEqual([true, false]);
  });

  it('refuses conditions it cannot read: unknown paths, operators without their value, too many rules', () => {
    const refused = [
      { match: 'all', rules: [] },
      { match: 'all', rules: [{ path: 'meta.x', operator: 'eq', value: 1 }] },
      { match: 'all', rules: [{ path: 'data.totalAmount', operator: 'gte', value: 'a lot' }] },
      { match: 'all', rules: [{ path: 'data.x', operator: 'in', value: [] }] },
      { match: 'some', rules: [{ path: 'data.x', operator: 'exists' }] },
      { match: 'all', rules: Array.from({ length: 11 }, () => ({ path: 'data.x', operator: 'exists' })) },
    ];
    for (const condition of refused) expect(flowConditionSchema.safeParse(condition).success, JSON.stringify(condition)).toBe(false);
  });
});
