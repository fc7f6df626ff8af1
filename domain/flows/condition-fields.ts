import { MAX_KEYWORDS, MAX_VARIANTS } from '../catalog/index.js';
import type { EventType } from '../events/index.js';
import { Problem } from '../kernel/index.js';
import { EVENT_EXAMPLES } from './event-samples.js';
import { CONDITION_BUDGET, conditionPathSchema, DECIMAL_TEXT, type ConditionRule, type FlowCondition } from './flow-conditions.js';

/**
 * What a Condition block may test, by event type: every path of the type's envelope `data` and
 * `changes`, read from the catalogue's example of the type (typed by its wire shape, so it has every
 * field), with the kind of value found there. The builder offers these; saving checks against them.
 */
export type ConditionFieldKind = 'number' | 'text' | 'boolean' | 'time';

export interface ConditionField {
  path: string;
  kind: ConditionFieldKind;
  /** Reached through a list (order lines, tags, `changes.fields`): a rule holds when it holds for any element. */
  list: boolean;
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T/;

function kindOf(name: string, value: unknown): ConditionFieldKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number' || (typeof value === 'string' && DECIMAL_TEXT.test(value))) return 'number';
  if ((typeof value === 'string' && TIMESTAMP.test(value)) || (value === null && name.endsWith('At'))) return 'time';
  return 'text';
}

function collect(value: unknown, path: string, list: boolean, into: Map<string, ConditionField>): void {
  if (Array.isArray(value)) {
    if (value.length === 0) into.set(path, { path, kind: 'text', list: true });
    for (const element of value) collect(element, path, true, into);
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [name, inner] of Object.entries(value)) collect(inner, `${path}.${name}`, list, into);
    return;
  }
  if (!into.has(path)) into.set(path, { path, kind: kindOf(path.slice(path.lastIndexOf('.') + 1), value), list });
}

/** Maps whose keys the shop names (a variant's attributes: `Màu`, `Size` in the example): no fields to offer. */
const FREE_FORM = /^data\.variants\.attributes\./;

const FIELDS_BY_TYPE = new Map(
  Object.entries(EVENT_EXAMPLES).map(([type, example]) => {
    const fields = new Map<string, ConditionField>();
    collect(example.data, 'data', false, fields);
    if (example.changes) collect(example.changes, 'changes', false, fields);
    return [type, [...fields.values()].filter((field) => !FREE_FORM.test(field.path) && conditionPathSchema.safeParse(field.path).success)];
  }),
);

/** The fields a condition on events of `type` may name. */
export function conditionFieldsOf(type: EventType): ConditionField[] {
  return FIELDS_BY_TYPE.get(type)!;
}

/** The operators that mean something for a kind of value: order for numbers, substrings for text. */
const OPERATORS_BY_KIND: Record<ConditionFieldKind, readonly ConditionRule['operator'][]> = {
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'notIn', 'exists', 'missing'],
  text: ['eq', 'ne', 'contains', 'in', 'notIn', 'exists', 'missing'],
  boolean: ['eq', 'ne', 'exists', 'missing'],
  time: ['eq', 'ne', 'exists', 'missing'],
};

export function operatorsFor(kind: ConditionFieldKind): readonly ConditionRule['operator'][] {
  return OPERATORS_BY_KIND[kind];
}

/**
 * The most elements each list of an event's data may hold, as the API's limits allow: a product's
 * variants and their keywords, its images, categories, an order's lines, a customer's contacts.
 */
const LARGEST_LISTS: Record<string, number> = {
  'data.variants': MAX_VARIANTS,
  'data.variants.keywords': MAX_KEYWORDS,
  'data.images': 50,
  'data.images.variantIds': MAX_VARIANTS,
  'data.categoryIds': 50,
  'data.lines': 200,
  'data.contacts': 20,
};
/** Lists no limit of the API bounds (tags, payments, addresses, attachments, itinerary events, changed fields): more than any record holds. */
const LARGEST_OTHER_LIST = 1_000;

/** Every path of the examples that holds a list (`data.lines`, `data.variants.keywords`, `changes.fields`). */
const LIST_PATHS = new Set<string>();
function collectLists(value: unknown, path: string): void {
  if (Array.isArray(value)) {
    LIST_PATHS.add(path);
    for (const element of value) collectLists(element, path);
  } else if (value !== null && typeof value === 'object')
    for (const [name, inner] of Object.entries(value)) collectLists(inner, `${path}.${name}`);
}
for (const example of Object.values(EVENT_EXAMPLES)) {
  collectLists(example.data, 'data');
  if (example.changes) collectLists(example.changes, 'changes');
}

/** The most values a rule on `path` may read in one event: the product of the largest lists along it. */
export function largestValueCount(path: string): number {
  const names = path.split('.');
  let count = 1;
  for (let end = 2; end <= names.length; end++) {
    const prefix = names.slice(0, end).join('.');
    if (LIST_PATHS.has(prefix)) count *= LARGEST_LISTS[prefix] ?? LARGEST_OTHER_LIST;
  }
  return count;
}

/**
 * A condition fits a flow's event types when each rule names a field of at least one of them (an
 * event of a type without it fails the rule, as an absent field does) and uses an operator that
 * means something for that field. 400 `validation-failed`, a field error per rule, otherwise.
 */
export function assertConditionFits(condition: FlowCondition, types: readonly EventType[]): void {
  const known = new Map(types.flatMap((type) => conditionFieldsOf(type)).map((field) => [field.path, field]));
  const errors = condition.rules.flatMap((rule, index) => {
    const field = known.get(rule.path);
    if (!field) return [{ path: `condition.rules.${index}.path`, message: `no field ${rule.path} in the events of ${types.join(', ')}` }];
    if (!operatorsFor(field.kind).includes(rule.operator))
      return [{ path: `condition.rules.${index}.operator`, message: `${rule.operator} does not apply to ${rule.path} (${field.kind})` }];
    return [];
  });
  if (errors.length > 0)
    throw new Problem('validation-failed', 'the condition names fields or comparisons the events do not have', { errors });
  assertConditionCost(condition);
}

/**
 * The save check of a condition's cost: the values its rules may read on the largest record the
 * event types allow stay within CONDITION_BUDGET, or 400 `validation-failed` beside the rule that
 * goes past it (`condition.rules.<i>.cost`), in words that say which field and how many values.
 */
function assertConditionCost(condition: FlowCondition): void {
  let total = 0;
  for (const [index, rule] of condition.rules.entries()) {
    const count = largestValueCount(rule.path);
    total += count;
    if (total > CONDITION_BUDGET)
      throw new Problem(
        'validation-failed',
        `the condition may test up to ${total} values of one event, more than the ${CONDITION_BUDGET} a condition may test`,
        {
          errors: [
            {
              path: `condition.rules.${index}.cost`,
              message: `${rule.path} may hold up to ${count} values in one event (${total} with the rules before it; at most ${CONDITION_BUDGET}): test a field with fewer values, or drop a rule`,
            },
          ],
        },
      );
  }
}
