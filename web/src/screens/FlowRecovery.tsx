import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ProblemError, unwrap, type Answer } from '../api/client';
import { SHOP_TIME_ZONE } from '../i18n/format';
import { useSession } from '../session';
import { Field, ProblemMessage, useFieldErrors } from '../ui';
import { usePermissionName } from './PermissionPicker';
import { useDeliveryWords } from './delivery-words';
import './recovery.css';

/** The API's pace (RECOVERY_PACE, domain/flows/delivery-recovery.ts): a pace over the cap is refused as a field error. */
const DEFAULT_PER_MINUTE = 60;
const MAX_PER_MINUTE = 600;
const DAY_MS = 24 * 60 * 60 * 1000;

type Recovery = Answer<'/api/admin/flows/{id}/recovery', 'get'>;
const COUNTS = ['found', 'resent', 'delivered', 'stillFailing', 'skipped'] as const;

/**
 * `2026-11-25T14:05` in the shop's zone, as every time of the app is read: what the datetime-local
 * input holds. Vietnam keeps +07:00 all year, so the input's value is that instant at +07:00.
 */
function shopInput(date: Date): string {
  const format = new Intl.DateTimeFormat('sv-SE', { timeZone: SHOP_TIME_ZONE, dateStyle: 'short', timeStyle: 'short', hourCycle: 'h23' });
  return format.format(date).replace(' ', 'T');
}
const SHOP_OFFSET = '+07:00';

/**
 * Still moving: the batch runs, or some of its resends are on their first attempt. The batch is over
 * once it has started its last resend, before that resend is delivered.
 */
function unsettled(batch: Recovery): boolean {
  return batch.state === 'running' || batch.resent > batch.delivered + batch.stillFailing;
}

/**
 * "Resend every failed delivery of this flow since…": the time and the pace, then the batch's
 * progress (found, resent, delivered, still failing) while it runs. A flow's latest batch shows on
 * arrival; a viewer sees it without the form.
 */
export function FlowRecovery({ flowId }: { flowId: string }) {
  const { t } = useTranslation('recovery');
  const words = useDeliveryWords();
  const { holds } = useSession();
  const permissionName = usePermissionName();
  const queryClient = useQueryClient();
  const manage = holds('automation.flows.manage');
  const [since, setSince] = useState(() => shopInput(new Date(Date.now() - DAY_MS)));
  const [perMinute, setPerMinute] = useState(String(DEFAULT_PER_MINUTE));
  // The batch this screen started or joined; before that, the flow's latest.
  const [batchSince, setBatchSince] = useState<string | undefined>();
  const [note, setNote] = useState<string | null>(null);
  const queryKey = ['recovery', flowId, batchSince];
  const batch = useQuery({
    queryKey,
    queryFn: async (): Promise<Recovery | null> => {
      const query = batchSince ? { since: batchSince } : {};
      try {
        return await unwrap(api.GET('/api/admin/flows/{id}/recovery', { params: { path: { id: flowId }, query } }));
      } catch (error) {
        if (error instanceof ProblemError && error.status === 404) return null;
        throw error;
      }
    },
    refetchInterval: (query) => (query.state.data && unsettled(query.state.data) ? 2_000 : false),
  });
  const start = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/admin/flows/{id}/recovery', {
          params: { path: { id: flowId } },
          body: { since: `${since}:00${SHOP_OFFSET}`, perMinute: Number(perMinute) },
        }),
      ),
    onSuccess: ({ joined, ...started }) => {
      setNote(t(joined ? 'joined' : 'started'));
      queryClient.setQueryData(['recovery', flowId, started.since], started);
      setBatchSince(started.since);
    },
  });
  const fieldError = useFieldErrors(start.error);
  const shown = batch.data;
  // The history below shows each resend's outcome as the batch's counts move.
  const moved = shown && shown.resent + shown.delivered + shown.stillFailing;
  useEffect(() => {
    if (moved) void queryClient.invalidateQueries({ queryKey: ['deliveries', flowId] });
  }, [moved, flowId, queryClient]);

  return (
    <section className="card recovery" aria-labelledby="recovery-title">
      <h2 id="recovery-title">{t('title')}</h2>
      <p className="note">{t('intro')}</p>
      {manage ? (
        <form
          className="filters"
          onSubmit={(event) => {
            event.preventDefault();
            setNote(null);
            start.mutate();
          }}
        >
          <Field label={t('since')} hint={t('sinceHint')} error={fieldError('since')}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="datetime-local"
                required
                value={since}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                onChange={(event) => setSince(event.target.value)}
              />
            )}
          </Field>
          <Field label={t('perMinute')} hint={t('perMinuteHint', { max: MAX_PER_MINUTE })} error={fieldError('perMinute')}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="number"
                required
                min={1}
                max={MAX_PER_MINUTE}
                value={perMinute}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                onChange={(event) => setPerMinute(event.target.value)}
              />
            )}
          </Field>
          <button type="submit" disabled={start.isPending}>
            {t('start')}
          </button>
        </form>
      ) : (
        <p className="note">{t('readOnly', { permission: permissionName('automation.flows.manage') })}</p>
      )}
      <ProblemMessage error={start.error} />
      {note && (
        <p role="status" className="saved-note">
          {note}
        </p>
      )}
      {shown && (
        <div className="recovery-progress" data-testid="recovery">
          <p>
            <span className={`badge state-${shown.state}`}>{t(`states.${shown.state}`)}</span>{' '}
            {t('batch', { since: words.when(shown.since), perMinute: shown.perMinute })}
          </p>
          <progress max={Math.max(shown.found, 1)} value={shown.resent + shown.skipped} aria-label={t('progress')} />
          <dl className="recovery-counts" aria-live="polite">
            {COUNTS.map((count) => (
              <div key={count}>
                <dt>{t(`counts.${count}`)}</dt>
                <dd data-count={count}>{shown[count]}</dd>
              </div>
            ))}
          </dl>
          <a href={shown.temporalUrl} target="_blank" rel="noreferrer">
            {t('temporal')}
          </a>
        </div>
      )}
    </section>
  );
}
