import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Answer } from '../api/client';
import { useDeliveryWords } from './delivery-words';

type TestRun = Answer<'/api/admin/flows/{id}/test-run', 'post'>;

/** The receiver's answer to a test-run, and the signed request that was sent; `children`: what is said of the flow's blocks. */
export function TestRunResult({ run, children }: { run: TestRun; children?: ReactNode }) {
  const { t } = useTranslation('flows');
  const { t: tDeliveries } = useTranslation('deliveries');
  const words = useDeliveryWords();
  const { attempt, request } = run;
  return (
    <section className="test-run" aria-labelledby="test-run-title" aria-live="polite">
      <h2 id="test-run-title">{t('testRun.title', { status: words.status(run.status) })}</h2>
      {children}
      <dl>
        <dt>{t('testRun.receiverStatus')}</dt>
        <dd data-testid="test-run-status">{attempt.statusCode ?? t('testRun.noAnswer')}</dd>
        <dt>{t('testRun.duration')}</dt>
        <dd>{t('testRun.ms', { ms: attempt.durationMs })}</dd>
        {attempt.error && (
          <>
            <dt>{t('testRun.error')}</dt>
            <dd>{words.failure(attempt.error)}</dd>
          </>
        )}
        <dt>{tDeliveries('answerExcerpt')}</dt>
        <dd>
          {attempt.responseExcerpt === null ? (
            <p className="note">{tDeliveries('answerHidden')}</p>
          ) : (
            // Focusable: a long answer scrolls, by keyboard too.
            <pre data-testid="test-run-excerpt" tabIndex={0}>
              {attempt.responseExcerpt || tDeliveries('emptyAnswer')}
            </pre>
          )}
        </dd>
      </dl>
      <h3>{t('testRun.request')}</h3>
      <pre className="request" data-testid="test-run-request" tabIndex={0}>
        {`POST ${request.url}\n${Object.entries(request.headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n')}${request.body === null ? '' : `\n\n${request.body}`}`}
      </pre>
      {request.body === null && <p className="note">{tDeliveries('dataHidden')}</p>}
    </section>
  );
}
