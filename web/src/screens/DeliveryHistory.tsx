import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { catalogueQuery } from '../api/catalogue';
import { useSession } from '../session';
import { Field, Loaded, ProblemMessage, When } from '../ui';

const STATUSES = ['delivered', 'retrying', 'failed', 'gone'] as const;
const PAGE = 20;

type Filters = { status?: (typeof STATUSES)[number]; eventType?: string; offset: number };

/** A flow's deliveries, newest first, paged, filtered by status and event type. */
export function DeliveryHistory({ flowId }: { flowId: string }) {
  const { holds } = useSession();
  const queryClient = useQueryClient();
  const [filters, setFilters] = useState<Filters>({ offset: 0 });
  const catalogue = useQuery(catalogueQuery);
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
  const resend = useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(api.POST('/api/admin/flows/{id}/deliveries/{deliveryId}/resend', { params: { path: { id: flowId, deliveryId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['deliveries', flowId] }),
  });
  const rows = { ...history, data: history.data?.data };

  return (
    <section aria-labelledby="history-title">
      <div className="title-row">
        <h1 id="history-title">Deliveries of {flow.data?.name ?? 'the flow'}</h1>
        <a href={`#/flows/${flowId}`}>Back to the flow</a>
      </div>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <Field label="Status">
          {(id) => (
            <select
              id={id}
              value={filters.status ?? ''}
              onChange={(event) => setFilters({ ...filters, status: (event.target.value || undefined) as Filters['status'], offset: 0 })}
            >
              <option value="">Any status</option>
              {STATUSES.map((status) => (
                <option key={status}>{status}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Event type">
          {(id) => (
            <select
              id={id}
              value={filters.eventType ?? ''}
              onChange={(event) => setFilters({ ...filters, eventType: event.target.value || undefined, offset: 0 })}
            >
              <option value="">Any event type</option>
              {catalogue.data?.eventTypes.map((type) => (
                <option key={type.type}>{type.type}</option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <ProblemMessage error={resend.error} />
      <Loaded query={rows} empty="No deliveries match.">
        {(deliveries) => (
          <ol className="deliveries">
            {deliveries.map((delivery) => (
              <li key={delivery.deliveryId} className="delivery" data-testid="delivery">
                <div className="delivery-head">
                  <span className={`badge status-${delivery.status}`}>{delivery.status}</span>
                  <code>{delivery.eventType}</code>
                  {delivery.testRun && <span className="badge">test-run</span>}
                  <When at={delivery.createdAt} />
                  <span>
                    {delivery.attempts.length} attempt{delivery.attempts.length === 1 ? '' : 's'}
                  </span>
                  <a href={delivery.temporalUrl} target="_blank" rel="noreferrer">
                    Workflow in Temporal
                  </a>
                  {delivery.status === 'failed' && holds('automation.flows.manage') && (
                    <button type="button" className="secondary" onClick={() => resend.mutate(delivery.deliveryId)}>
                      Resend
                    </button>
                  )}
                </div>
                <details>
                  <summary>Attempts and content</summary>
                  <ul>
                    {delivery.attempts.map((attempt) => (
                      <li key={attempt.attemptedAt}>
                        <When at={attempt.attemptedAt} />: {attempt.statusCode ?? attempt.error} in {attempt.durationMs} ms (
                        {attempt.verdict})
                        {attempt.responseExcerpt === null ? (
                          <p className="note">The answer is hidden: you may not read this event’s data type.</p>
                        ) : (
                          <pre>{attempt.responseExcerpt}</pre>
                        )}
                      </li>
                    ))}
                  </ul>
                  {delivery.data === undefined ? (
                    <p className="note">The sent data is hidden: you may not read this event’s data type.</p>
                  ) : (
                    <pre>{JSON.stringify(delivery.data, null, 2)}</pre>
                  )}
                </details>
              </li>
            ))}
          </ol>
        )}
      </Loaded>
      <nav className="pager" aria-label="Pages">
        <button
          type="button"
          className="secondary"
          disabled={filters.offset === 0}
          onClick={() => setFilters({ ...filters, offset: Math.max(0, filters.offset - PAGE) })}
        >
          Newer
        </button>
        <button
          type="button"
          className="secondary"
          disabled={history.data?.nextOffset == null}
          onClick={() => setFilters({ ...filters, offset: history.data!.nextOffset! })}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
