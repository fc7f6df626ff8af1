import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import type { ParseKeys } from 'i18next';
import type { Answer } from '../api/client';
import { Field } from '../ui';
import { useDeliveryWords } from './delivery-words';
import { needsPageFor, type EventType } from './flow-draft';

type EventTypes = Answer<'/api/admin/choices', 'get'>['eventTypes'];
type Pages = Answer<'/api/admin/choices', 'get'>['pages'];

export interface TriggerData extends Record<string, unknown> {
  chosen: EventType[];
  pageId: string | null;
  eventTypes: EventTypes;
  pages: Pages;
  disabled: boolean;
  /** Beside the event types, in plain words. */
  typesError?: string | undefined;
  /** Beside the chat page, in plain words. */
  pageError?: string | undefined;
  onChange: (change: { eventTypes?: EventType[]; pageId?: string | null }) => void;
}

/** A type's family is its code's first part (`order.created`: order). */
const familyOf = (type: string) => type.slice(0, type.indexOf('.'));

/**
 * The Trigger block: the event types of the catalogue, any number of them, by family (each its plain
 * name, its code beside it), and the chat page when a message event is among them.
 */
export function TriggerBlock({ data }: { data: TriggerData }) {
  const { t } = useTranslation('flows');
  const words = useDeliveryWords();
  const errorId = useId();
  const families = [...new Set(data.eventTypes.map((entry) => familyOf(entry.type)))];
  const needsPage = needsPageFor(data.chosen, data.eventTypes);
  const toggle = (type: EventType, on: boolean) =>
    data.onChange({ eventTypes: on ? [...data.chosen, type] : data.chosen.filter((other) => other !== type) });
  return (
    <div className="block trigger-block nodrag" role="group" aria-label={t('canvas.trigger')}>
      <h2>{t('canvas.triggerTitle')}</h2>
      <fieldset className="event-types" aria-describedby={data.typesError ? errorId : undefined}>
        <legend>{t('canvas.eventTypes')}</legend>
        {families.map((family) => (
          <fieldset key={family} className="family">
            <legend>{t(`canvas.families.${family}` as ParseKeys<'flows'>, { defaultValue: family })}</legend>
            {data.eventTypes
              .filter((entry) => familyOf(entry.type) === family)
              .map(({ type }) => (
                <label key={type} className="check">
                  <input
                    type="checkbox"
                    checked={data.chosen.includes(type as EventType)}
                    disabled={data.disabled}
                    onChange={(event) => toggle(type as EventType, event.target.checked)}
                  />
                  <span>
                    {words.eventType(type)} <code>{type}</code>
                  </span>
                </label>
              ))}
          </fieldset>
        ))}
        {data.typesError && (
          <small id={errorId} className="field-error">
            {data.typesError}
          </small>
        )}
      </fieldset>
      {needsPage && (
        <Field label={t('canvas.chatPage')} hint={t('canvas.chatPageHint')} error={data.pageError}>
          {(id, hint, invalid) => (
            <select
              id={id}
              aria-describedby={hint}
              aria-invalid={invalid || undefined}
              value={data.pageId ?? ''}
              disabled={data.disabled}
              onChange={(event) => data.onChange({ pageId: event.target.value || null })}
            >
              <option value="">{t('canvas.choosePage')}</option>
              {data.pages.map((page) => (
                <option key={page.id} value={page.id}>
                  {page.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
    </div>
  );
}
