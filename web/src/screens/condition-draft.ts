import type { Answer, Schemas } from '../api/client';
import { ProblemError } from '../api/client';

type Choices = Answer<'/api/admin/choices', 'get'>;
type Condition = Schemas['AdminFlowConditionInput'];
type Rule = Condition['rules'][number];
export type Operator = Rule['operator'];
type Kind = Choices['eventTypes'][number]['conditionFields'][number]['kind'];

/** A field a rule may test: what the server offers of it, and which of the chosen event types have it. */
export interface ConditionField {
  path: string;
  kind: Kind;
  list: boolean;
  operators: Operator[];
  types: string[];
}

/** A rule as the builder edits it: the value as typed (a list comma-separated, a boolean `true`/`false`). */
export interface RuleDraft {
  path: string;
  operator: Operator | '';
  value: string;
}

export interface ConditionDraft {
  match: 'all' | 'any';
  rules: RuleDraft[];
}

/** What a condition may hold (rules, values of a list, characters of a value), as the server says. */
export type ConditionLimits = Choices['conditionLimits'];
const DECIMAL = /^-?\d+(\.\d+)?$/;

export const NEW_RULE: RuleDraft = { path: '', operator: '', value: '' };
export const NEW_CONDITION: ConditionDraft = { match: 'all', rules: [NEW_RULE] };

const LISTED: Operator[] = ['in', 'notIn'];
const ORDERED: Operator[] = ['gt', 'gte', 'lt', 'lte'];
/** The operators a rule's value is irrelevant to. */
export const needsNoValue = (operator: Operator | '') => operator === 'exists' || operator === 'missing';
export const takesList = (operator: Operator | '') => LISTED.includes(operator as Operator);

/**
 * What a condition on the chosen types may test: the union of their fields (a field of one type only
 * fails on the others' events). Where types disagree on a field's kind the last one's counts, as on the server.
 */
export function conditionFields(types: readonly string[], choices: Choices): Map<string, ConditionField> {
  const fields = new Map<string, ConditionField>();
  for (const type of types) {
    for (const field of choices.eventTypes.find((entry) => entry.type === type)?.conditionFields ?? []) {
      const known = fields.get(field.path)?.types ?? [];
      fields.set(field.path, { ...field, operators: field.operators as Operator[], types: [...known, type] });
    }
  }
  return fields;
}

export function conditionDraftOf(condition: Condition | null): ConditionDraft | null {
  if (!condition) return null;
  const valueOf = (rule: Rule) => {
    if (!('value' in rule)) return '';
    return Array.isArray(rule.value) ? rule.value.map(String).join(', ') : String(rule.value);
  };
  return {
    match: condition.match,
    rules: condition.rules.map((rule) => ({ path: rule.path, operator: rule.operator, value: valueOf(rule) })),
  };
}

const listItems = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The condition as the API takes it; amounts go as decimal strings, compared exactly. */
export function conditionOf(draft: ConditionDraft, fields: Map<string, ConditionField>): Condition {
  const rules = draft.rules.map((rule): Rule => {
    const { path } = rule;
    const operator = rule.operator as Operator;
    const asBoolean = fields.get(path)?.kind === 'boolean';
    const scalar = (text: string) => (asBoolean ? text === 'true' : text);
    switch (operator) {
      case 'exists':
      case 'missing':
        return { path, operator };
      case 'in':
      case 'notIn':
        return { path, operator, value: listItems(rule.value).map(scalar) };
      case 'eq':
      case 'ne':
        return { path, operator, value: scalar(rule.value.trim()) };
      default:
        return { path, operator, value: rule.value.trim() };
    }
  });
  return { match: draft.match, rules };
}

/** A rule's problem the screen can tell by itself (conditions `errors.*`); whether the field fits the event types the server says. */
export type RuleProblem = 'fieldRequired' | 'operatorRequired' | 'valueRequired' | 'notNumber' | 'valueTooLong' | 'tooManyValues';
export type RuleProblems = Partial<Record<'path' | 'operator' | 'value', RuleProblem>>;

function valueProblem(rule: RuleDraft, field: ConditionField | undefined, limits: ConditionLimits): RuleProblem | undefined {
  if (rule.operator === '' || needsNoValue(rule.operator)) return undefined;
  const values = takesList(rule.operator) ? listItems(rule.value) : [rule.value.trim()].filter((value) => value !== '');
  if (values.length === 0) return 'valueRequired';
  if (values.length > limits.values) return 'tooManyValues';
  if (values.some((value) => value.length > limits.valueLength)) return 'valueTooLong';
  if ((field?.kind === 'number' || ORDERED.includes(rule.operator)) && values.some((value) => !DECIMAL.test(value))) return 'notNumber';
  return undefined;
}

/** Each rule's problems before anything is sent. */
export function conditionProblems(
  draft: ConditionDraft | null,
  fields: Map<string, ConditionField>,
  limits: ConditionLimits,
): RuleProblems[] {
  return (draft?.rules ?? []).map((rule) => {
    const problems: RuleProblems = {};
    if (rule.path === '') problems.path = 'fieldRequired';
    else if (rule.operator === '') problems.operator = 'operatorRequired';
    const value = valueProblem(rule, fields.get(rule.path), limits);
    if (value) problems.value = value;
    return problems;
  });
}

/** What the server refused of a rule (conditions `refused.*`): a field the types lack, a comparison that does not apply, a value. */
/** Which part of a rule the server refused; `cost`: the field may hold too many values in one event (shown beside the field). */
export type RuleRefusal = 'path' | 'operator' | 'value' | 'cost';

/**
 * The server's refusal of the rules, kept with what was sent: a rule's refusal is shown beside it
 * while the rule and the event types are as they were sent.
 */
export interface RefusedRules {
  eventTypes: string;
  rules: ({ sent: string; refused: RuleRefusal } | undefined)[];
}

const RULE_ERROR = /^condition\.rules\.(\d+)\.(path|operator|value|cost)\b/;
/** A list as a set: the same key whatever its order. */
export const setKey = (list: readonly string[]) => [...list].sort().join(' ');

/** Whether the server placed an error beside a rule. */
export const isRuleError = (path: string) => RULE_ERROR.test(path);

export function refusedRules(error: unknown, eventTypes: readonly string[], draft: ConditionDraft | null): RefusedRules | null {
  if (!(error instanceof ProblemError) || !draft) return null;
  const rules: RefusedRules['rules'] = [];
  for (const item of error.errors) {
    const [, index, part] = RULE_ERROR.exec(item.path) ?? [];
    const at = Number(index);
    if (part !== undefined && draft.rules[at] && !rules[at])
      rules[at] = { sent: JSON.stringify(draft.rules[at]), refused: part as RuleRefusal };
  }
  return rules.length > 0 ? { eventTypes: setKey(eventTypes), rules } : null;
}

/** The refusals that still hold for what is on screen, by rule. */
export function standingRefusals(
  refused: RefusedRules | null,
  eventTypes: readonly string[],
  draft: ConditionDraft | null,
): (RuleRefusal | undefined)[] {
  if (!refused || !draft || refused.eventTypes !== setKey(eventTypes)) return [];
  return draft.rules.map((rule, index) => {
    const at = refused.rules[index];
    return at?.sent === JSON.stringify(rule) ? at.refused : undefined;
  });
}
