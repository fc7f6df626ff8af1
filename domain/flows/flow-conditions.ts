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

/**
 * How many values one condition may test per event: every value a rule's path reaches counts once
 * (an `in` list is one lookup). Checked on save against the largest record the flow's event types
 * allow (condition-fields.ts), and again while evaluating, so no shop's condition holds the relay long.
 */
export const CONDITION_BUDGET = 150_000;

/** A condition's evaluation went past CONDITION_BUDGET: the event is not matched (the relay retries it, then sets it aside). */
export class ConditionBudgetExceeded extends Error {
  readonly tests: number;

  constructor(tests: number) {
    super(`the condition would test ${tests} values of the event, more than its budget of ${CONDITION_BUDGET}`);
    this.tests = tests;
  }
}

const elements = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

function asDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Decimal(value) : undefined;
  if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return new Decimal(value);
  return undefined;
}

/** What two values equal under the rules' comparison share: the decimal they read as, else the string or boolean itself. */
function equalityKey(value: unknown, decimal: Decimal | undefined): string | undefined {
  if (decimal) return `d${decimal.isZero() ? '0' : decimal.toString()}`;
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'boolean') return `b${String(value)}`;
  return undefined;
}

/** The values at one path of an event, each read as a decimal and as an equality key at most once. */
class PathValues {
  private decimalsRead: (Decimal | undefined)[] | undefined;
  private keysRead: (string | undefined)[] | undefined;
  private keySetRead: Set<string | undefined> | undefined;
  readonly values: unknown[];

  constructor(values: unknown[]) {
    this.values = values;
  }
  get decimals(): (Decimal | undefined)[] {
    return (this.decimalsRead ??= this.values.map(asDecimal));
  }
  get keys(): (string | undefined)[] {
    const decimals = this.decimals;
    return (this.keysRead ??= this.values.map((value, index) => equalityKey(value, decimals[index])));
  }
  /** The keys as a set: for a list shorter than the values, each listed key is one lookup here. */
  get keySet(): Set<string | undefined> {
    return (this.keySetRead ??= new Set(this.keys));
  }
}

/**
 * An event as conditions read it: the values at each path found once, and shared by every flow
 * (of the same account's view) that names the path.
 */
export class ConditionReading {
  private readonly found = new Map<string, PathValues>();
  private readonly subject: ConditionSubject;

  constructor(subject: ConditionSubject) {
    this.subject = subject;
  }

  /** Every value at `path`: through arrays, their elements (an array at the end too); absent and null left out. */
  at(path: string): PathValues {
    let values = this.found.get(path);
    if (!values) {
      const names = path.split('.');
      let current: unknown[] = [names[0] === 'data' ? this.subject.data : this.subject.changes];
      for (const name of names.slice(1)) {
        current = current
          .flatMap(elements)
          .map((value) =>
            value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined,
          );
      }
      values = new PathValues(current.flatMap(elements).filter((value) => value !== undefined && value !== null));
      this.found.set(path, values);
    }
    return values;
  }
}

/**
 * A comparison with `right`, read once: -1, 0, 1, or undefined when the two do not compare (not both
 * decimals, nor both strings or booleans).
 */
function comparisonWith(right: Scalar): (left: unknown, leftDecimal: Decimal | undefined) => number | undefined {
  const rightDecimal = asDecimal(right);
  return (left, leftDecimal) => {
    if (rightDecimal && leftDecimal) return leftDecimal.comparedTo(rightDecimal);
    if (typeof left === typeof right && (typeof left === 'string' || typeof left === 'boolean')) {
      return left === right ? 0 : String(left) < String(right) ? -1 : 1;
    }
    return undefined;
  };
}

const ORDERS = {
  gt: (order: number) => order > 0,
  gte: (order: number) => order >= 0,
  lt: (order: number) => order < 0,
  lte: (order: number) => order <= 0,
};

/** A rule's test of the values at its path (true when one of them passes), its right-hand side read once. */
function valuesTest(rule: Exclude<ConditionRule, { operator: 'missing' | 'exists' }>): (found: PathValues) => boolean {
  switch (rule.operator) {
    case 'eq':
    case 'in':
    case 'notIn': {
      // Equality as keys: a list of fifty is one set lookup per value, not fifty comparisons.
      const listed: readonly Scalar[] = Array.isArray(rule.value) ? rule.value : [rule.value];
      const wanted = new Set(listed.map((value) => equalityKey(value, asDecimal(value))));
      if (rule.operator === 'notIn') return (found) => found.keys.some((key) => !wanted.has(key));
      // The shorter side is walked: fifty listed prices against a product's 2,048 are fifty lookups
      // in the set of its prices, built once per event and shared by every flow that names the path.
      const wantedKeys = [...wanted].filter((key) => key !== undefined);
      return (found) =>
        wantedKeys.length < found.values.length
          ? wantedKeys.some((key) => found.keySet.has(key))
          : found.keys.some((key) => key !== undefined && wanted.has(key));
    }
    case 'ne':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const compare = comparisonWith(rule.value);
      const accepts = rule.operator === 'ne' ? (order: number) => order !== 0 : ORDERS[rule.operator];
      return (found) => {
        const decimals = found.decimals;
        return found.values.some((value, index) => {
          const order = compare(value, decimals[index]);
          return order !== undefined && accepts(order);
        });
      };
    }
    case 'contains': {
      const part = rule.value;
      return (found) => found.values.some((value) => typeof value === 'string' && value.includes(part));
    }
  }
}

/** A rule, read once: the path it reads and its test of the values there. */
interface CompiledRule {
  path: string;
  holds: (found: PathValues) => boolean;
}

function compileRule(rule: ConditionRule): CompiledRule {
  if (rule.operator === 'missing') return { path: rule.path, holds: (found) => found.values.length === 0 };
  if (rule.operator === 'exists') return { path: rule.path, holds: (found) => found.values.length > 0 };
  return { path: rule.path, holds: valuesTest(rule) };
}

/**
 * Each rule's verdict on the reading, in order, each charged the values it reads before it runs:
 * past CONDITION_BUDGET it throws ConditionBudgetExceeded.
 */
function* verdicts(rules: readonly CompiledRule[], reading: ConditionReading): Generator<boolean> {
  let tests = 0;
  for (const rule of rules) {
    const found = reading.at(rule.path);
    tests += found.values.length;
    if (tests > CONDITION_BUDGET) throw new ConditionBudgetExceeded(tests);
    yield rule.holds(found);
  }
}

/** A compiled condition: whether it holds for an event's reading, stopping where the match is decided. */
export type CompiledCondition = (reading: ConditionReading) => boolean;

/** A condition as a test, built once per flow and run for every event matched to it. */
export function compileCondition(condition: FlowCondition): CompiledCondition {
  const rules = condition.rules.map(compileRule);
  const any = condition.match === 'any';
  return (reading) => {
    for (const holds of verdicts(rules, reading)) if (holds === any) return any;
    return !any;
  };
}

/** Whether a condition holds for a subject, and each rule's part in it: what a test-run shows. */
export function conditionVerdict(condition: FlowCondition, subject: ConditionSubject): { holds: boolean; rules: boolean[] } {
  const rules = [...verdicts(condition.rules.map(compileRule), new ConditionReading(subject))];
  return { holds: condition.match === 'all' ? rules.every(Boolean) : rules.some(Boolean), rules };
}
