import { useId, useState, type ReactNode } from 'react';
import { ProblemError } from './api/client';

/** A labelled form control; `hint` and the field's error are announced with it. */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: string;
  error?: string;
  children: (id: string, describedBy?: string) => ReactNode;
}) {
  const id = useId();
  const hintId = hint || error ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
      {hint && !error && (
        <small id={hintId} className="hint">
          {hint}
        </small>
      )}
      {error && (
        <small id={hintId} className="field-error">
          {error}
        </small>
      )}
    </div>
  );
}

/** A refusal, as the problem body tells it, with its field errors. */
export function ProblemMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const problem = error instanceof ProblemError ? error : null;
  return (
    <div role="alert" className="problem">
      <strong>{problem ? problem.message : String((error as Error).message ?? error)}</strong>
      {problem && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((item) => (
            <li key={`${item.path}:${item.message}`}>
              <code>{item.path}</code>: {item.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The three states of a list: loading, failed, empty; `children` otherwise. */
export function Loaded<T>({
  query,
  empty,
  children,
}: {
  query: { isPending: boolean; error: unknown; data?: T[] | undefined };
  empty: string;
  children: (rows: T[]) => ReactNode;
}) {
  if (query.isPending)
    return (
      <p className="loading" aria-live="polite">
        Loading…
      </p>
    );
  if (query.error) return <ProblemMessage error={query.error} />;
  if (!query.data || query.data.length === 0) return <p className="empty">{empty}</p>;
  return <>{children(query.data)}</>;
}

/** A secret shown exactly once, with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> — copy it now: it is shown only this once.
      </p>
      <div className="copy-row">
        <code data-testid="shown-once">{value}</code>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard.writeText(value).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  );
}

export function When({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

/** One part of the shop set-up screen: a titled card its heading labels. */
export function SetupPart({ title, children }: { title: string; children: ReactNode }) {
  const id = `setup-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
