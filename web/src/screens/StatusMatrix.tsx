import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../api/client';
import { useSession } from '../session';
import { ProblemMessage, SetupPart } from '../ui';

type Matrices = Answer<'/api/admin/order-statuses', 'get'>;
type Move = NonNullable<Body<'/api/admin/order-statuses', 'post'>['remove']>[number];

/** The order status matrix: each default move, kept or removed for this shop. */
export function StatusMatrix() {
  const { holds } = useSession();
  const queryClient = useQueryClient();
  const matrices = useQuery({ queryKey: ['setup', 'order-statuses'], queryFn: () => unwrap(api.GET('/api/admin/order-statuses')) });
  const change = useMutation({
    mutationFn: ({ move, keep }: { move: Move; keep: boolean }) =>
      unwrap(api.POST('/api/admin/order-statuses', { body: keep ? { restore: [move] } : { remove: [move] } })),
    onSuccess: (next: Matrices) => queryClient.setQueryData(['setup', 'order-statuses'], next),
  });
  const manage = holds('settings.sales_channels');
  return (
    <SetupPart title="Order status matrix">
      {matrices.isPending && <p className="loading">Loading…</p>}
      <ProblemMessage error={matrices.error ?? change.error} />
      {matrices.data && (
        <div className="matrix">
          {Object.entries(matrices.data.defaultMatrix).map(([from, moves]) =>
            moves.length === 0 ? null : (
              <fieldset key={from}>
                <legend>From {from}</legend>
                {moves.map((to) => (
                  <label key={to} className="check">
                    <input
                      type="checkbox"
                      checked={matrices.data.matrix[from]?.includes(to) ?? false}
                      disabled={!manage || change.isPending}
                      onChange={(event) => change.mutate({ move: [from, to] as Move, keep: event.target.checked })}
                    />
                    {to}
                  </label>
                ))}
              </fieldset>
            ),
          )}
        </div>
      )}
    </SetupPart>
  );
}
