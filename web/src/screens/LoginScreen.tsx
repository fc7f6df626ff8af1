import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { chooseLanguage } from '../i18n';
import { adoptSession } from '../session';
import { Field, LanguageSelect, ProblemMessage, useFieldErrors } from '../ui';

type Form = { shop: string; email: string; password: string };

/** The login form, in Vietnamese until the person picks another language (kept in this browser until they log in). */
export function LoginScreen() {
  const { t } = useTranslation(['login', 'problems']);
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>({ shop: '', email: '', password: '' });
  const [missing, setMissing] = useState<(keyof Form)[]>([]);
  const logIn = useMutation({
    mutationFn: async () => adoptSession(await unwrap(api.POST('/api/admin/session', { body: form }))),
    onSuccess: (session) => queryClient.setQueryData(['session'], session),
  });
  const serverError = useFieldErrors(logIn.error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const empty = (Object.keys(form) as (keyof Form)[]).filter((name) => form[name].trim() === '');
    setMissing(empty);
    if (empty.length > 0) {
      event.currentTarget.querySelector<HTMLInputElement>(`[name="${empty[0]}"]`)?.focus();
      return;
    }
    logIn.mutate();
  };
  const input = (name: keyof Form, type: string, autoComplete: string) => (id: string, describedBy?: string, invalid?: boolean) => (
    <input
      id={id}
      name={name}
      type={type}
      autoComplete={autoComplete}
      aria-describedby={describedBy}
      aria-invalid={invalid || undefined}
      value={form[name]}
      onChange={(event) => setForm({ ...form, [name]: event.target.value })}
    />
  );
  const error = (name: keyof Form) => (missing.includes(name) ? t('problems:field.required') : serverError(name));
  return (
    <main className="login">
      <div className="login-head">
        <h1>{t('title')}</h1>
        <LanguageSelect onChoose={(language) => void chooseLanguage(language)} />
      </div>
      <form onSubmit={submit} noValidate aria-describedby="login-note">
        <p id="login-note">{t('note')}</p>
        <Field label={t('shop')} hint={t('shopHint')} error={error('shop')}>
          {input('shop', 'text', 'organization')}
        </Field>
        <Field label={t('email')} error={error('email')}>
          {input('email', 'email', 'username')}
        </Field>
        <Field label={t('password')} error={error('password')}>
          {input('password', 'password', 'current-password')}
        </Field>
        <ProblemMessage error={logIn.error} onRetry={() => logIn.mutate()} />
        <button type="submit" disabled={logIn.isPending}>
          {logIn.isPending ? t('loggingIn') : t('logIn')}
        </button>
      </form>
    </main>
  );
}
