import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Answer, type Body } from '../api/client';
import { useSession } from '../session';
import { ProblemMessage, SetupPart } from '../ui';
import { useDeliveryWords } from './delivery-words';
import { usePermissionName } from './PermissionPicker';
import './flows.css';

type Matrices = Answer<'/api/admin/order-statuses', 'get'>;
type Move = NonNullable<Body<'/api/admin/order-statuses', 'post'>['remove']>[number];

/** The order status matrix: each default move, kept or removed for this shop, by the states' plain names; each save confirmed. */
export function StatusMatrix() {
  const { holds } = useSession();
  const { t } = useTranslation('events');
  const words = useDeliveryWords();
  const permissionName = usePermissionName();
  const queryClient = useQueryClient();
  const [confirmed, setConfirmed] = useState<string | null>(null);
  const matrices = useQuery({ queryKey: ['setup', 'order-statuses'], queryFn: () => unwrap(api.GET('/api/admin/order-statuses')) });
  const change = useMutation({
    mutationFn: ({ move, keep }: { move: Move; keep: boolean }) =>
      unwrap(api.POST('/api/admin/order-statuses', { body: keep ? { restore: [move] } : { remove: [move] } })),
    onMutate: () => setConfirmed(null),
    onSuccess: (next: Matrices, { move: [from, to], keep }) => {
      queryClient.setQueryData(['setup', 'order-statuses'], next);
      setConfirmed(t(keep ? 'matrix.allowed' : 'matrix.removed', { from: words.orderState(from), to: words.orderState(to) }));
    },
  });
  const manage = holds('settings.sales_channels');
  return (
    <SetupPart title={t('matrix.title')}>
      <p className="matrix-intro">{t('matrix.intro')}</p>
      {!manage && <p className="note">{t('matrix.readOnly', { permission: permissionName('settings.sales_channels') })}</p>}
      {matrices.isPending && <p className="loading">{t('loading', { ns: 'common' })}</p>}
      <ProblemMessage
        error={matrices.error ?? change.error}
        onRetry={() => void (matrices.error ? matrices.refetch() : change.mutate(change.variables!))}
      />
      <p role="status" className="saved-note">
        {confirmed}
      </p>
      {matrices.data && (
        <div className="matrix">
          {Object.entries(matrices.data.defaultMatrix).map(([from, moves]) =>
            moves.length === 0 ? null : (
              <fieldset key={from}>
                <legend>
                  {t('matrix.from', { state: words.orderState(from) })} <code className="code-aside">({from})</code>
                </legend>
                {moves.map((to) => (
                  <label key={to} className="check">
                    <input
                      type="checkbox"
                      checked={matrices.data.matrix[from]?.includes(to) ?? false}
                      disabled={!manage || change.isPending}
                      onChange={(event) => change.mutate({ move: [from, to] as Move, keep: event.target.checked })}
                    />
                    {words.orderState(to)} <code className="code-aside">({to})</code>
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
