import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { NetworkError, ProblemError } from './api/client';
import { formatDateTime } from './i18n/format';
import { LANGUAGES, type Language } from './i18n';

/**
 * A labelled form control; `hint` and the field's error are announced with it. `children` gets the
 * control's id, the id of what describes it, and whether it is invalid (for `aria-invalid`).
 */
export function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: string;
  error?: string | undefined;
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ReactNode;
}) {
  const id = useId();
  const hintId = hint || error ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, hintId, Boolean(error))}
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

type FieldErrorWords = (path: string, problem: ProblemError) => string | undefined;

/** A field error of the server in plain words: what the check means, never the validator's text. */
function plainFieldError(t: TFunction<'problems'>, problem: ProblemError, message: string): string {
  if (problem.code === 'conflict') return t('field.taken');
  if (/too small|required|blank|>=\s*1 char|received undefined/i.test(message)) return t('field.required');
  if (/too big|<=/i.test(message)) return t('field.tooLong');
  return t('field.invalid');
}

/**
 * The refusal's field errors, to show beside their fields: `of(path)` is the error of the field the
 * problem's `errors[].path` names (`pickUp.phone`), in the screen's `words` when it has some for it,
 * else in plain words.
 */
export function useFieldErrors(error: unknown, words?: FieldErrorWords): (path: string) => string | undefined {
  const { t } = useTranslation('problems');
  const problem = error instanceof ProblemError ? error : null;
  const byPath = new Map<string, string>();
  for (const item of problem?.errors ?? []) {
    if (!byPath.has(item.path)) byPath.set(item.path, words?.(item.path, problem!) ?? plainFieldError(t, problem!, item.message));
  }
  return (path) => byPath.get(path);
}

/**
 * What went wrong, in plain words, where it happened. A network failure says so and offers `onRetry`
 * (every screen's answer to a dropped connection); a refusal says what its problem code means, or
 * what still uses the entry (`usedBy`), or the screen's own `words` for it. The server's own text
 * and field errors stay under "technical details" (each field shows its error: useFieldErrors).
 */
export function ProblemMessage({
  error,
  onRetry,
  words,
}: {
  error: unknown;
  onRetry?: () => void;
  words?: (problem: ProblemError) => string | undefined;
}) {
  const { t } = useTranslation(['problems', 'common']);
  if (!error) return null;
  const problem = error instanceof ProblemError ? error : null;
  const network = error instanceof NetworkError;
  const retryable = network || problem?.code === 'rate-limited' || problem?.code === 'internal-error';
  const errors = problem?.errors ?? [];
  return (
    <div role="alert" className="problem">
      <p>{network ? t('network') : problem ? (words?.(problem) ?? explainProblem(t, problem)) : t('codes.other')}</p>
      {retryable && onRetry && (
        <button type="button" className="secondary" onClick={onRetry}>
          {t('common:retry')}
        </button>
      )}
      {!network && (
        <details className="technical">
          <summary>{t('technicalDetails')}</summary>
          {/* The server's own words, in English: shown as such, for whoever reports the problem. */}
          <p>
            <code lang="en">{(error as Error).message ?? String(error)}</code>
          </p>
          {errors.length > 0 && (
            <ul>
              {errors.map((item) => (
                <li key={`${item.path}:${item.message}`}>
                  <code lang="en">
                    {item.path}: {item.message}
                  </code>
                </li>
              ))}
            </ul>
          )}
        </details>
      )}
    </div>
  );
}

const KNOWN_CODES = [
  'validation-failed',
  'conflict',
  'limit-reached',
  'not-found',
  'insufficient-permission',
  'not-logged-in',
  'invalid-credentials',
  'csrf-token-invalid',
  'rate-limited',
  'internal-error',
] as const;
const IN_USE = ['orders', 'stock-rows', 'open-stock-documents', 'carrier-connections'] as const;

function explainProblem(t: TFunction<['problems', 'common']>, problem: ProblemError): string {
  const usedBy = problem.extra.usedBy;
  if (problem.code === 'conflict' && typeof usedBy === 'string') {
    const count = Number(problem.extra.uses ?? 0);
    return IN_USE.includes(usedBy as (typeof IN_USE)[number])
      ? t(`inUse.${usedBy as (typeof IN_USE)[number]}`, { count })
      : t('inUse.other');
  }
  const code = KNOWN_CODES.find((known) => known === problem.code);
  return code ? t(`codes.${code}`) : t('codes.other');
}

/** The three states of a list: loading, failed (with a retry), empty; `children` otherwise. */
export function Loaded<T>({
  query,
  empty,
  children,
}: {
  query: { isPending: boolean; error: unknown; data?: T[] | undefined; refetch?: () => unknown };
  empty: string;
  children: (rows: T[]) => ReactNode;
}) {
  const { t } = useTranslation();
  if (query.error) return <ProblemMessage error={query.error} onRetry={query.refetch && (() => void query.refetch!())} />;
  if (query.isPending)
    return (
      <p className="loading" aria-live="polite">
        {t('loading')}
      </p>
    );
  if (!query.data || query.data.length === 0) return <p className="empty">{empty}</p>;
  return <>{children(query.data)}</>;
}

/** A secret shown exactly once, with a copy button. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  const { t } = useTranslation('ui');
  const [copied, setCopied] = useState(false);
  return (
    <div className="shown-once" role="status">
      <p>
        <strong>{label}</strong> — {t('shownOnce')}
      </p>
      <div className="copy-row">
        <code data-testid="shown-once">{value}</code>
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard.writeText(value).then(() => setCopied(true));
          }}
        >
          {copied ? t('copied') : t('copy')}
        </button>
      </div>
    </div>
  );
}

/** The app's language choice (the login screen keeps it in this browser; the header also on the person's account). */
export function LanguageSelect({ onChoose }: { onChoose: (language: Language) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <select aria-label={t('language.label')} value={i18n.language} onChange={(event) => onChoose(event.target.value as Language)}>
      {LANGUAGES.map((language) => (
        <option key={language} value={language} lang={language}>
          {t(`language.${language}`)}
        </option>
      ))}
    </select>
  );
}

/** A time in the shop's zone and the app's language (`25/11/2026 14:05`). */
export function When({ at }: { at: string | null | undefined }) {
  const { i18n } = useTranslation();
  if (!at) return <span>—</span>;
  return <time dateTime={at}>{formatDateTime(at, i18n.language as Language)}</time>;
}

/** One part of the shop set-up screen: a titled card its heading labels. */
export function SetupPart({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * A question asked before something that cannot be undone, in a modal dialog of the page (in the
 * app's language, unlike the browser's `confirm`): `confirm` does it, Cancel or Escape does not.
 */
export function Confirm({
  open,
  question,
  confirm,
  onConfirm,
  onClose,
  danger = false,
}: {
  open: boolean;
  question: string;
  confirm: string;
  onConfirm: () => void;
  onClose: () => void;
  /** What it does cannot be undone (a removal): its button is red. */
  danger?: boolean;
}) {
  const { t } = useTranslation();
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
    if (!open && dialog.current?.open) dialog.current.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="confirm" aria-labelledby={id} onClose={onClose}>
      <p id={id}>{question}</p>
      <div className="actions">
        <button
          type="button"
          className={danger ? 'danger-solid' : undefined}
          onClick={() => {
            onConfirm();
            onClose();
          }}
        >
          {confirm}
        </button>
        <button type="button" className="secondary" onClick={onClose} autoFocus>
          {t('cancel')}
        </button>
      </div>
    </dialog>
  );
}

/** A button that asks `question` first (Confirm), then does `onConfirm`. */
export function ConfirmButton({
  children,
  question,
  confirm,
  onConfirm,
  className = 'danger',
  label,
  disabled,
}: {
  children: ReactNode;
  question: string;
  confirm: string;
  onConfirm: () => void;
  className?: string;
  /** The accessible name when `children` alone is ambiguous (Remove, beside many rows). */
  label?: string;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  return (
    <>
      <button type="button" className={className} aria-label={label} disabled={disabled} onClick={() => setAsking(true)}>
        {children}
      </button>
      <Confirm
        open={asking}
        question={question}
        confirm={confirm}
        onConfirm={onConfirm}
        onClose={() => setAsking(false)}
        danger={className === 'danger'}
      />
    </>
  );
}
