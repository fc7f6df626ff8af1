import type { Answer } from '../api/client';

type TestRun = Answer<'/api/admin/flows/{id}/test-run', 'post'>;

/** The receiver's answer to a test-run, and the signed request that was sent. */
export function TestRunResult({ run }: { run: TestRun }) {
  const { attempt, request } = run;
  return (
    <section className="test-run" aria-labelledby="test-run-title" aria-live="polite">
      <h2 id="test-run-title">Test-run: {run.status}</h2>
      <dl>
        <dt>Receiver’s status</dt>
        <dd data-testid="test-run-status">{attempt.statusCode ?? 'no answer'}</dd>
        <dt>Duration</dt>
        <dd>{attempt.durationMs} ms</dd>
        {attempt.error && (
          <>
            <dt>Error</dt>
            <dd>{attempt.error}</dd>
          </>
        )}
        <dt>Answer (excerpt)</dt>
        <dd>
          {attempt.responseExcerpt === null ? (
            <p className="note">The answer is hidden: you may not read this event’s data type.</p>
          ) : (
            <pre data-testid="test-run-excerpt">{attempt.responseExcerpt || '(empty)'}</pre>
          )}
        </dd>
      </dl>
      <h3>Signed request sent</h3>
      <pre className="request" data-testid="test-run-request">
        {`POST ${request.url}\n${Object.entries(request.headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n')}${request.body === null ? '' : `\n\n${request.body}`}`}
      </pre>
      {request.body === null && <p className="note">The sent data is hidden: you may not read this event’s data type.</p>}
    </section>
  );
}
