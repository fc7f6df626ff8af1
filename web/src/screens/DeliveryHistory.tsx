import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer } from '../api/client';
import { choicesQuery } from '../api/choices';
import { useSession } from '../session';
import { Field, Loaded, ProblemMessage, When } from '../ui';
import { useDeliveryWords } from './delivery-words';
import { FlowRecovery } from './FlowRecovery';
import './flows.css';

const STATUSES = ['delivered', 'retrying', 'failed', 'gone'] as const;
const PAGE = 20;

type Filters = { status?: (typeof STATUSES)[number]; eventType?: string; offset: number };
type Delivery = Answer<'/api/admin/flows/{id}/deliveries', 'get'>['data'][number];

/** A flow's deliveries, newest first, paged, filtered by status and event type. */
export function DeliveryHistory({ flowId }: { flowId: string }) {
  const { t } = useTranslation('deliveries');
  const words = useDeliveryWords();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>({ offset: 0 });
  const [done, setDone] = useState<string | null>(null);
  const choices = useQuery(choicesQuery);
  const flow = useQuery({
    queryKey: ['flow', flowId],
    queryFn: () => unwrap(api.GET('/api/admin/flows/{id}', { params: { path: { id: flowId } } })),
  });
  const history = useQuery({
    queryKey: ['deliveries', flowId, filters],
    queryFn: () =>
      unwrap(
        api.GET('/api/admin/flows/{id}/deliveries', {
          params: { path: { id: flowId }, query: { ...filters, eventType: filters.eventType as never, limit: PAGE } },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
  });
  const params = (deliveryId: string) => ({ params: { path: { id: flowId, deliveryId } } });
  const afterAsk = (words: string) => () => {
    setDone(words);
    return queryClient.invalidateQueries({ queryKey: ['deliveries', flowId] });
  };
  const resend = useMutation({
    mutationFn: (deliveryId: string) => unwrap(api.POST('/api/admin/flows/{id}/deliveries/{deliveryId}/resend', params(deliveryId))),
    onSuccess: afterAsk(t('resent')),
  });
  const retryNow = useMutation({
    mutationFn: (deliveryId: string) => unwrap(api.POST('/api/admin/flows/{id}/deliveries/{deliveryId}/retry', params(deliveryId))),
    onSuccess: afterAsk(t('retryAsked')),
  });
  const rows = { ...history, data: history.data?.data };
  const choose = (next: Partial<Filters>) => setFilters({ ...filters, ...next, offset: 0 });

  return (
    <section aria-labelledby="history-title">
      <div className="title-row">
        <h1 id="history-title">{flow.data ? t('title', { name: flow.data.name }) : t('titleAnyFlow')}</h1>
        <a href={`#/flows/${flowId}`}>{t('back')}</a>
      </div>
      <FlowRecovery flowId={flowId} />
      <form className="filters" aria-label={t('filters.label')} onSubmit={(event) => event.preventDefault()}>
        <Field label={t('filters.status')}>
          {(id) => (
            <select
              id={id}
              value={filters.status ?? ''}
              onChange={(event) => choose({ status: (event.target.value || undefined) as Filters['status'] })}
            >
              <option value="">{t('filters.anyStatus')}</option>
              {STATUSES.map((status) => (
                <option key={status} value={status}>
                  {words.status(status)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t('filters.eventType')}>
          {(id) => (
            <select id={id} value={filters.eventType ?? ''} onChange={(event) => choose({ eventType: event.target.value || undefined })}>
              <option value="">{t('filters.anyEventType')}</option>
              {choices.data?.eventTypes.map((type) => (
                <option key={type.type} value={type.type}>
                  {`${words.eventType(type.type)} (${type.type})`}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <ProblemMessage error={resend.error ?? retryNow.error} />
      {done && (
        <p role="status" className="saved-note">
          {done}
        </p>
      )}
      <Loaded query={rows} empty={t('empty')}>
        {(deliveries) => (
          <ol className="deliveries">
            {deliveries.map((delivery) => (
              <DeliveryRow
                key={delivery.deliveryId}
                delivery={delivery}
                onResend={() => resend.mutate(delivery.deliveryId)}
                onRetryNow={() => retryNow.mutate(delivery.deliveryId)}
                busy={resend.isPending || retryNow.isPending}
              />
            ))}
          </ol>
        )}
      </Loaded>
      <nav className="pager" aria-label={t('pages')}>
        <button
          type="button"
          className="secondary"
          disabled={filters.offset === 0}
          onClick={() => setFilters({ ...filters, offset: Math.max(0, filters.offset - PAGE) })}
        >
          {t('newer')}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={history.data?.nextOffset == null}
          onClick={() => setFilters({ ...filters, offset: history.data!.nextOffset! })}
        >
          {t('older')}
        </button>
      </nav>
    </section>
  );
}

/** One delivery: what it was about, how it went, when it tries next; its attempts and content on demand. */
function DeliveryRow({
  delivery,
  onResend,
  onRetryNow,
  busy,
}: {
  delivery: Delivery;
  onResend: () => void;
  onRetryNow: () => void;
  busy: boolean;
}) {
  const { holds } = useSession();
  const { t } = useTranslation('deliveries');
  const words = useDeliveryWords();
  const manage = holds('automation.flows.manage');
  const last = delivery.attempts.length - 1;
  const verdict = (attempt: Delivery['attempts'][number], index: number) =>
    delivery.status === 'failed' && index === last ? t('verdicts.last') : t(`verdicts.${attempt.verdict}`);
  return (
    <li className="delivery" data-testid="delivery">
      <div className="delivery-head">
        <span className={`badge status-${delivery.status}`}>{words.status(delivery.status)}</span>
        {delivery.testRun && <span className="badge">{t('testRun')}</span>}
        {delivery.about && <span className="delivery-about">{delivery.about}</span>}
        <span>
          {words.eventType(delivery.eventType)} <code className="code-aside">{delivery.eventType}</code>
        </span>
        <When at={delivery.createdAt} />
        <span>{t('attempts', { count: delivery.attempts.length })}</span>
        {delivery.status === 'retrying' && delivery.nextAttemptAt && (
          <span className="next-attempt">
            {t('nextAttempt', { time: words.when(delivery.nextAttemptAt), left: delivery.attemptsLeft ?? 0 })}
          </span>
        )}
        {delivery.status === 'retrying' && manage && (
          <button type="button" onClick={onRetryNow} disabled={busy}>
            {t('retryNow')}
          </button>
        )}
        {/* A test-run is no event of the shop: there is nothing to send again. */}
        {delivery.status === 'failed' && !delivery.testRun && manage && (
          <button type="button" className="secondary" onClick={onResend} disabled={busy}>
            {t('resend')}
          </button>
        )}
        <a href={delivery.temporalUrl} target="_blank" rel="noreferrer">
          {t('temporal')}
        </a>
      </div>
      <details>
        <summary>{t('details')}</summary>
        <ul className="attempt-list">
          {delivery.attempts.map((attempt, index) => (
            <li key={attempt.attemptedAt}>
              {t('attempt', {
                time: words.when(attempt.attemptedAt),
                outcome:
                  attempt.statusCode === null
                    ? t('noAnswer', { error: words.failure(attempt.error) })
                    : t('answered', { code: attempt.statusCode }),
                ms: attempt.durationMs,
                verdict: verdict(attempt, index),
              })}
              {attempt.responseExcerpt === null ? (
                <p className="note">{t('answerHidden')}</p>
              ) : (
                attempt.responseExcerpt && <pre tabIndex={0}>{attempt.responseExcerpt}</pre>
              )}
            </li>
          ))}
        </ul>
        {delivery.data === undefined ? (
          <p className="note">{t('dataHidden')}</p>
        ) : (
          <>
            <p className="note">{t('sentData')}</p>
            <pre tabIndex={0}>{JSON.stringify(delivery.data, null, 2)}</pre>
          </>
        )}
      </details>
    </li>
  );
}
