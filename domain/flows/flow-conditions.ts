import { Decimal } from 'decimal.js';
import { z } from 'zod';

/**
 * The Condition block: rules on an event's envelope, all or any of which must hold for the flow to
 * deliver it. A rule names a path into the envelope (`data.totalAmount`, `data.salesChannel.code`,
 * `changes.fields`, `changes.status.to`) and compares what is there with a value.
 *
 * - A path goes through objects by name; through an array (and at its end) the values are the
 *   array's elements, and the rule holds when it holds for any of them (`data.lines.sku eq "AO-01"`:
 *   some line has that SKU; `changes.fields eq "status"`: the status changed).
 * - Values compare as decimals when both sides read as decimals (amounts are decimal strings:
 *   `"1250000.00" gte 1000000` holds), else as strings, exactly. `contains` is a substring; an array
 *   holding a value is `eq` (some element equal); `in` / `notIn` take a list.
 * - A path that leads nowhere (absent, null, an empty array) fails every rule but `missing`.
 */
/** What a condition may hold: rules, values of an `in`/`notIn` list, characters of a value. */
export const CONDITION_LIMITS = { rules: 10, values: 50, valueLength: 200 } as const;
/** A decimal as amounts are written (`"1250000.00"`): compared as a decimal. */
export const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

const scalar = z.union([z.string().max(CONDITION_LIMITS.valueLength), z.number().finite(), z.boolean()]);
export const conditionPathSchema = z
  .string()
  .regex(/^(data|changes)(\.[A-Za-z][A-Za-z0-9]*)+$/, 'a path into the envelope: data.<field>… or changes.<field>…')
  .max(200);

export const conditionRuleSchema = z.discriminatedUnion('operator', [
  z.object({ path: conditionPathSchema, operator: z.enum(['eq', 'ne']), value: scalar }),
  z.object({ path: conditionPathSchema, operator: z.literal('contains'), value: z.string().min(1).max(CONDITION_LIMITS.valueLength) }),
  z.object({
    path: conditionPathSchema,
    operator: z.enum(['gt', 'gte', 'lt', 'lte']),
    value: z.union([z.number().finite(), z.string().regex(DECIMAL_TEXT)]),
  }),
  z.object({ path: conditionPathSchema, operator: z.enum(['in', 'notIn']), value: z.array(scalar).min(1).max(CONDITION_LIMITS.values) }),
  z.object({ path: conditionPathSchema, operator: z.literal('exists') }),
  z.object({ path: conditionPathSchema, operator: z.literal('missing') }),
]);
export type ConditionRule = z.infer<typeof conditionRuleSchema>;

export const flowConditionSchema = z.object({
  match: z.enum(['all', 'any']),
  rules: z.array(conditionRuleSchema).min(1).max(CONDITION_LIMITS.rules),
});
export type FlowCondition = z.infer<typeof flowConditionSchema>;

/** What a condition reads: the envelope's `data` and `changes`. */
export interface ConditionSubject {
  data: unknown;
  changes?: unknown;
}

type Scalar = string | number | boolean;

const elements = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** Every value at `path`: through arrays, their elements (an array at the end too); absent and null left out. */
function valuesAt(subject: ConditionSubject, path: string[]): unknown[] {
  let current: unknown[] = [path[0] === 'data' ? subject.data : subject.changes];
  for (const name of path.slice(1)) {
    current = current
      .flatMap(elements)
      .map((value) =>
        value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined,
      );
  }
  return current.flatMap(elements).filter((value) => value !== undefined && value !== null);
}

function asDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Decimal(value) : undefined;
  if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return new Decimal(value);
  return undefined;
}

/**
 * A comparison with `right`, read once: -1, 0, 1, or undefined when the two do not compare (not both
 * decimals, nor both strings or booleans).
 */
function comparisonWith(right: Scalar): (left: unknown) => number | undefined {
  const rightDecimal = asDecimal(right);
  return (left) => {
    const leftDecimal = rightDecimal && asDecimal(left);
    if (leftDecimal) return leftDecimal.comparedTo(rightDecimal);
    if (typeof left === typeof right && (typeof left === 'string' || typeof left === 'boolean')) {
      return left === right ? 0 : String(left) < String(right) ? -1 : 1;
    }
    return undefined;
  };
}

const equalTo = (right: Scalar) => {
  const compare = comparisonWith(right);
  return (left: unknown) => compare(left) === 0;
};

/** A rule's test of one value, its right-hand side read once. */
function valueTest(rule: Exclude<ConditionRule, { operator: 'missing' }>): (value: unknown) => boolean {
  switch (rule.operator) {
    case 'eq':
      return equalTo(rule.value);
    case 'ne': {
      const compare = comparisonWith(rule.value);
      return (value) => (compare(value) ?? 0) !== 0;
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const compare = comparisonWith(rule.value);
      const accepts = {
        gt: (order: number) => order > 0,
        gte: (order: number) => order >= 0,
        lt: (order: number) => order < 0,
        lte: (order: number) => order <= 0,
      }[rule.operator];
      return (value) => {
        const order = compare(value);
        return order !== undefined && accepts(order);
      };
    }
    case 'in':
    case 'notIn': {
      const candidates = rule.value.map(equalTo);
      const among = (value: unknown) => candidates.some((candidate) => candidate(value));
      return rule.operator === 'in' ? among : (value) => !among(value);
    }
    case 'contains': {
      const part = rule.value;
      return (value) => typeof value === 'string' && value.includes(part);
    }
    case 'exists':
      return () => true;
  }
}

/** A rule, read once: a test of a subject. */
function compileRule(rule: ConditionRule): (subject: ConditionSubject) => boolean {
  const path = rule.path.split('.');
  if (rule.operator === 'missing') return (subject) => valuesAt(subject, path).length === 0;
  const test = valueTest(rule);
  return (subject) => valuesAt(subject, path).some(test);
}

/** A condition as a test, built once per flow and run for every event matched to it. */
export function compileCondition(condition: FlowCondition): (subject: ConditionSubject) => boolean {
  const rules = condition.rules.map(compileRule);
  return condition.match === 'all' ? (subject) => rules.every((rule) => rule(subject)) : (subject) => rules.some((rule) => rule(subject));
}

/** Whether a condition holds for a subject, and each rule's part in it: what a test-run shows. */
export function conditionVerdict(condition: FlowCondition, subject: ConditionSubject): { holds: boolean; rules: boolean[] } {
  const rules = condition.rules.map((rule) => compileRule(rule)(subject));
  return { holds: condition.match === 'all' ? rules.every(Boolean) : rules.some(Boolean), rules };
}
