import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import { Field } from '../ui';
import { useDeliveryWords } from './delivery-words';
import {
  NEW_RULE,
  needsNoValue,
  takesList,
  type ConditionDraft,
  type ConditionField,
  type ConditionLimits,
  type Operator,
  type RuleDraft,
  type RuleProblems,
  type RuleRefusal,
} from './condition-draft';

/** The Condition block's settings but its condition. */
export interface ConditionSettings {
  /** What the chosen event types' events have, by path. */
  fields: Map<string, ConditionField>;
  eventTypes: string[];
  limits: ConditionLimits;
  /** Each rule's problems, once they are to be shown, and what they come to, in plain words. */
  problems: RuleProblems[];
  error?: string | undefined;
  /** Each rule's refusal by the server, while the rule is as it was sent. */
  refusals: (RuleRefusal | undefined)[];
  disabled: boolean;
  /** null: the block is removed. */
  onChange: (next: ConditionDraft | null) => void;
}

export interface ConditionData extends ConditionSettings, Record<string, unknown> {
  condition: ConditionDraft;
}

/** A field's plain name where the messages have one (`data.totalAmount`: total amount); its path otherwise. */
export function useFieldName(): (path: string) => string | undefined {
  const { t, i18n } = useTranslation('conditions');
  return (path) => (i18n.exists(`conditions:fields.${path}`) ? t(`fields.${path}` as ParseKeys<'conditions'>) : undefined);
}

/** A field as the lists show it: its plain name, with its code for the integrator. */
export function useFieldLabel(): (path: string) => string {
  const name = useFieldName();
  return (path) => {
    const plain = name(path);
    return plain ? `${plain} (${path})` : path;
  };
}

/** The fields to choose from: what changed first, then the fields with a plain name, then the rest. */
function FieldOptions({ fields, current }: { fields: Map<string, ConditionField>; current: string }) {
  const { t } = useTranslation('conditions');
  const name = useFieldName();
  const label = useFieldLabel();
  const paths = [...fields.keys()].sort();
  const groups = [
    { key: 'changes', paths: paths.filter((path) => path.startsWith('changes.')) },
    { key: 'common', paths: paths.filter((path) => path.startsWith('data.') && name(path)) },
    { key: 'other', paths: paths.filter((path) => path.startsWith('data.') && !name(path)) },
    // A field the types no longer have stays shown, for the server's word on it.
    { key: 'unknown', paths: current !== '' && !fields.has(current) ? [current] : [] },
  ] as const;
  return (
    <>
      <option value="">{t('chooseField')}</option>
      {groups.map((group) =>
        group.paths.length === 0 ? null : (
          <optgroup key={group.key} label={t(`groups.${group.key}`)}>
            {group.paths.map((path) => (
              // A bare path is a code, not words to translate.
              <option key={path} value={path} translate={name(path) ? undefined : 'no'}>
                {label(path)}
              </option>
            ))}
          </optgroup>
        ),
      )}
    </>
  );
}

/** A rule with its field changed: a comparison and value that still mean something for the new field. */
function withField(rule: RuleDraft, field: ConditionField | undefined): RuleDraft {
  if (!field) return { ...NEW_RULE };
  const operator = rule.operator !== '' && field.operators.includes(rule.operator) ? rule.operator : field.operators[0]!;
  const value = needsNoValue(operator) ? '' : field.kind === 'boolean' && !['true', 'false'].includes(rule.value) ? 'true' : rule.value;
  return { path: field.path, operator, value };
}

function RuleEditor({
  rule,
  number,
  data,
  onChange,
  onRemove,
}: {
  rule: RuleDraft;
  number: number;
  data: ConditionData;
  onChange: (rule: RuleDraft) => void;
  onRemove: () => void;
}) {
  const { t } = useTranslation('conditions');
  const words = useDeliveryWords();
  const field = data.fields.get(rule.path);
  const problems = data.problems[number - 1] ?? {};
  const refusal = data.refusals[number - 1];
  const error = (part: 'path' | 'operator' | 'value') =>
    refusal === part || (part === 'path' && refusal === 'cost')
      ? t(`refused.${refusal}`)
      : problems[part]
        ? t(`errors.${problems[part]}`, data.limits)
        : undefined;
  const operators: Operator[] = field?.operators ?? (rule.operator === '' ? [] : [rule.operator]);
  const fieldHint = [
    field?.list ? t('listHint') : '',
    field && field.types.length < data.eventTypes.length ? t('onlyIn', { types: field.types.map(words.eventType).join(', ') }) : '',
  ].join(' ');
  const valueInput = (id: string, describedBy: string | undefined, invalid: boolean) => {
    const common = {
      id,
      'aria-describedby': describedBy,
      'aria-invalid': invalid || undefined,
      value: rule.value,
      disabled: data.disabled,
    };
    if (field?.kind === 'boolean' && !takesList(rule.operator))
      return (
        <select {...common} onChange={(event) => onChange({ ...rule, value: event.target.value })}>
          <option value="true">{t('yes')}</option>
          <option value="false">{t('no')}</option>
        </select>
      );
    const number = field?.kind === 'number' && !takesList(rule.operator);
    return (
      <input
        {...common}
        type={number ? 'number' : 'text'}
        step={number ? 'any' : undefined}
        inputMode={number ? 'decimal' : undefined}
        onChange={(event) => onChange({ ...rule, value: event.target.value })}
      />
    );
  };
  const listed = takesList(rule.operator);
  return (
    <li>
      <fieldset className="rule">
        <legend>{t('rule', { number })}</legend>
        <Field label={t('field')} hint={fieldHint.trim() || undefined} error={error('path')}>
          {(id, describedBy, invalid) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={rule.path}
              disabled={data.disabled}
              onChange={(event) => onChange(withField(rule, data.fields.get(event.target.value)))}
            >
              <FieldOptions fields={data.fields} current={rule.path} />
            </select>
          )}
        </Field>
        <Field label={t('operator')} error={error('operator')}>
          {(id, describedBy, invalid) => (
            <select
              id={id}
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={rule.operator}
              disabled={data.disabled || rule.path === ''}
              onChange={(event) => {
                const operator = event.target.value as Operator;
                onChange({ ...rule, operator, value: needsNoValue(operator) ? '' : rule.value });
              }}
            >
              <option value="">{t('chooseOperator')}</option>
              {operators.map((operator) => (
                <option key={operator} value={operator}>
                  {t(`operators.${operator}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
        {rule.operator !== '' && !needsNoValue(rule.operator) && (
          <Field
            label={listed ? t('values') : t('value')}
            hint={listed ? t('valuesHint') : field?.kind === 'number' ? t('numberHint') : undefined}
            error={error('value')}
          >
            {valueInput}
          </Field>
        )}
        {!data.disabled && (
          <button type="button" className="secondary" onClick={onRemove}>
            {t('removeRule', { number })}
          </button>
        )}
      </fieldset>
    </li>
  );
}

/** The Condition block: all or any of up to ten rules on the event's fields, between the Trigger and the HTTP-send. */
export function ConditionBlock({ data }: { data: ConditionData }) {
  const { t } = useTranslation('conditions');
  const name = useId();
  const { condition, disabled, onChange } = data;
  const setRules = (rules: RuleDraft[]) => onChange(rules.length === 0 ? null : { ...condition, rules });
  return (
    <div className="block condition-block nodrag" role="group" aria-label={t('block')}>
      <h2>{t('title')}</h2>
      <p className="note">{t('intro')}</p>
      {data.error && <p className="field-error">{data.error}</p>}
      <fieldset className="match">
        <legend>{t('match.legend')}</legend>
        {(['all', 'any'] as const).map((match) => (
          <label key={match} className="check">
            <input
              type="radio"
              name={name}
              value={match}
              checked={condition.match === match}
              disabled={disabled}
              onChange={() => onChange({ ...condition, match })}
            />
            {t(`match.${match}`)}
          </label>
        ))}
      </fieldset>
      <ol className="rules">
        {condition.rules.map((rule, index) => (
          <RuleEditor
            // The rules have no identity of their own; every control in them is controlled.
            key={index}
            rule={rule}
            number={index + 1}
            data={data}
            onChange={(next) => setRules(condition.rules.map((other, at) => (at === index ? next : other)))}
            onRemove={() => setRules(condition.rules.filter((_, at) => at !== index))}
          />
        ))}
      </ol>
      {!disabled && (
        <div className="block-actions">
          {condition.rules.length < data.limits.rules ? (
            <button type="button" className="secondary" onClick={() => setRules([...condition.rules, { ...NEW_RULE }])}>
              {t('addRule')}
            </button>
          ) : (
            <p className="note">{t('maxRules', { max: data.limits.rules })}</p>
          )}
          <button type="button" className="secondary" onClick={() => onChange(null)}>
            {t('remove')}
          </button>
        </div>
      )}
    </div>
  );
}
