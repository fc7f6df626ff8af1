import { useTranslation } from 'react-i18next';
import type { Answer } from '../api/client';
import { useDeliveryWords } from './delivery-words';
import { useFieldName } from './ConditionBlock';
import { needsNoValue, type ConditionDraft } from './condition-draft';

type Verdict = Answer<'/api/admin/flows/{id}/test-run', 'post'>['condition'];

/**
 * What a test-run says of the Condition block: the event type tested, whether a real event like the
 * test's would be sent or skipped, and each rule's part in it.
 */
export function ConditionVerdict({
  eventType,
  condition,
  verdict,
}: {
  eventType: string;
  /** The condition tested, as it was on screen. */
  condition: ConditionDraft | null;
  verdict: Verdict;
}) {
  const { t } = useTranslation('conditions');
  const words = useDeliveryWords();
  const fieldName = useFieldName();
  return (
    <>
      <p>
        {t('verdict.tested', { type: words.eventType(eventType) })} <code>{eventType}</code>
      </p>
      {verdict && condition && (
        <section className="verdict" aria-labelledby="verdict-title">
          <h3 id="verdict-title">{t('verdict.title')}</h3>
          <p className={verdict.holds ? 'passes' : 'skipped'} data-testid="verdict">
            {verdict.holds ? t('verdict.passes') : t('verdict.skipped')}
          </p>
          <ul className="verdict-rules">
            {condition.rules.map((rule, index) => {
              const held = verdict.rules[index] ?? false;
              return (
                <li key={index} data-testid="verdict-rule" className={held ? 'held' : 'failed'}>
                  <span aria-hidden="true">{held ? '✓' : '✗'}</span> <strong>{t('rule', { number: index + 1 })}</strong>:{' '}
                  {fieldName(rule.path)} <code>{rule.path}</code> {rule.operator && t(`operators.${rule.operator}`)}{' '}
                  {!needsNoValue(rule.operator) && <code>{rule.value}</code>} —{' '}
                  <strong>{held ? t('verdict.held') : t('verdict.failed')}</strong>
                </li>
              );
            })}
          </ul>
        </section>
      )}
    </>
  );
}
