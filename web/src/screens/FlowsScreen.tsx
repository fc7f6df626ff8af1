import { useInfiniteQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { Loaded, ProblemMessage, When } from '../ui';

/** The shop's flows, oldest first, one page of the list (default limit) after another. */
function useFlowPages() {
  return useInfiniteQuery({
    queryKey: ['flows'],
    queryFn: ({ pageParam }) => unwrap(api.GET('/api/admin/flows', { params: { query: pageParam ? { cursor: pageParam } : {} } })),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });
}

/** The shop's flows with their state and latest delivery. */
export function FlowsScreen() {
  const { holds } = useSession();
  const pages = useFlowPages();
  // A refused next page leaves the rows loaded so far on screen, with the refusal under them.
  const nextPageError = pages.isFetchNextPageError ? pages.error : null;
  const flows = { ...pages, error: nextPageError ? null : pages.error, data: pages.data?.pages.flatMap((page) => page.data) };
  return (
    <section aria-labelledby="flows-title">
      <div className="title-row">
        <h1 id="flows-title">Flows</h1>
        {holds('automation.flows.manage') && (
          <a className="button" href="#/flows/new">
            New flow
          </a>
        )}
      </div>
      <Loaded query={flows} empty="No flows yet. A flow sends each event of one type, signed, to an HTTPS address.">
        {(rows) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">State</th>
                  <th scope="col">Last delivery</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((flow) => (
                  <tr key={flow.id}>
                    <td>
                      <a href={`#/flows/${flow.id}`}>{flow.name}</a>
                    </td>
                    <td>
                      <code>{flow.eventType}</code>
                    </td>
                    <td>
                      <span className={`badge state-${flow.state}`}>{flow.state}</span>
                      {!flow.httpEnabled && <span className="badge state-off"> HTTP off (410)</span>}
                    </td>
                    <td>
                      {flow.lastDelivery ? (
                        <>
                          <span className={`badge status-${flow.lastDelivery.status}`}>{flow.lastDelivery.status}</span>{' '}
                          <When at={flow.lastDelivery.createdAt} />
                        </>
                      ) : (
                        'none yet'
                      )}
                    </td>
                    <td>
                      <a href={`#/flows/${flow.id}/history`}>History</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
      <ProblemMessage error={nextPageError} />
      {pages.hasNextPage && (
        <nav className="pager" aria-label="Pages">
          <button type="button" className="secondary" disabled={pages.isFetchingNextPage} onClick={() => void pages.fetchNextPage()}>
            {pages.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        </nav>
      )}
    </section>
  );
}
