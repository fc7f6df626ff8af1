import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { Loaded, When } from '../ui';

export const flowsQuery = { queryKey: ['flows'], queryFn: async () => (await unwrap(api.GET('/api/admin/flows'))).data };

/** The shop's flows with their state and latest delivery. */
export function FlowsScreen() {
  const { holds } = useSession();
  const flows = useQuery(flowsQuery);
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
    </section>
  );
}
