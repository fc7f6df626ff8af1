import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { Loaded, ProblemMessage, When } from '../ui';
import { useDeliveryWords } from './delivery-words';
import { shownState } from './flow-draft';
import { FlowSparkline } from './FlowSparkline';
import './flows.css';

/** The shop's flows, oldest first, one page of the list (default limit) after another. */
function useFlowPages() {
  return useInfiniteQuery({
    queryKey: ['flows'],
    queryFn: ({ pageParam }) => unwrap(api.GET('/api/admin/flows', { params: { query: pageParam ? { cursor: pageParam } : {} } })),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** The shop's flows with their state and latest delivery; a table on a wide screen, one card a flow on a phone. */
export function FlowsScreen() {
  const { holds } = useSession();
  const { t } = useTranslation('flows');
  const words = useDeliveryWords();
  const pages = useFlowPages();
  // A refused next page leaves the rows loaded so far on screen, with the refusal under them.
  const nextPageError = pages.isFetchNextPageError ? pages.error : null;
  const flows = { ...pages, error: nextPageError ? null : pages.error, data: pages.data?.pages.flatMap((page) => page.data) };
  return (
    <section aria-labelledby="flows-title">
      <div className="title-row">
        <h1 id="flows-title">{t('list.title')}</h1>
        {holds('automation.flows.manage') && (
          <a className="button" href="#/flows/new">
            {t('list.newFlow')}
          </a>
        )}
      </div>
      <Loaded query={flows} empty={t('list.empty')}>
        {(rows) => (
          <div className="table-wrap">
            <table className="flows-table">
              <thead>
                <tr>
                  <th scope="col">{t('list.name')}</th>
                  <th scope="col">{t('list.trigger')}</th>
                  <th scope="col">{t('list.state')}</th>
                  <th scope="col">{t('list.lastDelivery')}</th>
                  <th scope="col">{t('sparkline.column', { ns: 'health' })}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('list.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((flow) => {
                  const state = shownState(flow);
                  return (
                    <tr key={flow.id}>
                      <td>
                        <a href={`#/flows/${flow.id}`}>{flow.name}</a>
                      </td>
                      <td data-label={t('list.trigger')}>
                        {words.eventType(flow.eventType)}
                        {flow.eventTypes.length > 1 && ` ${t('list.moreTypes', { count: flow.eventTypes.length - 1 })}`}{' '}
                        <code className="code-aside">{flow.eventTypes.join(', ')}</code>
                      </td>
                      <td data-label={t('list.state')}>
                        <span className={`badge state-${state}`}>{t(`states.${state}`)}</span>
                      </td>
                      <td data-label={t('list.lastDelivery')}>
                        {flow.lastDelivery ? (
                          <>
                            <span className={`badge status-${flow.lastDelivery.status}`}>{words.status(flow.lastDelivery.status)}</span>{' '}
                            <When at={flow.lastDelivery.createdAt} />
                          </>
                        ) : (
                          t('list.noDelivery')
                        )}
                      </td>
                      <td data-label={t('sparkline.column', { ns: 'health' })}>
                        <FlowSparkline flowId={flow.id} />
                      </td>
                      <td>
                        <a href={`#/flows/${flow.id}/history`} aria-label={t('list.historyOf', { name: flow.name })}>
                          {t('list.history')}
                        </a>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
      <ProblemMessage error={nextPageError} onRetry={() => void pages.fetchNextPage()} />
      {pages.hasNextPage && (
        <nav className="pager" aria-label={t('list.pages')}>
          <button type="button" className="secondary" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            {pages.isFetchingNextPage ? t('loading', { ns: 'common' }) : t('list.loadMore')}
          </button>
        </nav>
      )}
    </section>
  );
}
