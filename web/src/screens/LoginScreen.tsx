import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Field, ProblemMessage } from '../ui';

export function LoginScreen() {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ shop: '', email: '', password: '' });
  const logIn = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/session', { body: form })),
    onSuccess: (session) => queryClient.setQueryData(['session'], session),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    logIn.mutate();
  };
  const input = (name: keyof typeof form, type: string, autoComplete: string) => (id: string) => (
    <input
      id={id}
      name={name}
      type={type}
      autoComplete={autoComplete}
      required
      value={form[name]}
      onChange={(event) => setForm({ ...form, [name]: event.target.value })}
    />
  );
  return (
    <main className="login">
      <h1>Shopflow admin</h1>
      <form onSubmit={submit} aria-describedby="login-note">
        <p id="login-note">Log in with your shop member account.</p>
        <Field label="Shop">{input('shop', 'text', 'organization')}</Field>
        <Field label="E-mail">{input('email', 'email', 'username')}</Field>
        <Field label="Password">{input('password', 'password', 'current-password')}</Field>
        <ProblemMessage error={logIn.error} />
        <button type="submit" disabled={logIn.isPending}>
          {logIn.isPending ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
