import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { choicesQuery } from '../api/choices';
import { Confirm, ConfirmButton, Field, Loaded, ProblemMessage, ShownOnce, useFieldErrors, When } from '../ui';
import { PermissionName, PermissionPicker } from './PermissionPicker';

const applicationsQuery = { queryKey: ['applications'], queryFn: () => unwrap(api.GET('/api/admin/applications')) };

/** API connections: applications with their keys; create, rename, rotate with overlap (once confirmed), revoke, remove. */
export function ConnectionsScreen() {
  const { t } = useTranslation('connections');
  const applications = useQuery(applicationsQuery);
  const [issued, setIssued] = useState<{ label: string; key: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const limits = applications.data?.limits;
  const count = applications.data?.data.length ?? 0;
  return (
    <section aria-labelledby="connections-title">
      <h1 id="connections-title">{t('title')}</h1>
      {limits && <p className="note">{t('limits', { count, max: limits.applications, keys: limits.liveKeys })}</p>}
      {issued && <ShownOnce label={issued.label} value={issued.key} />}
      {done && (
        <p role="status" className="saved">
          {done}
        </p>
      )}
      {limits && count < limits.applications && <CreateApplication onCreated={(key) => setIssued({ label: t('newKey'), key })} />}
      <Loaded query={{ ...applications, data: applications.data?.data }} empty={t('empty')}>
        {(rows) => (
          <ul className="applications">
            {rows.map((application) => (
              <Application
                key={application.id}
                application={application}
                maxOverlap={limits!.overlapHours}
                onKey={(key) => setIssued({ label: t('newKeyOf', { name: application.name }), key })}
                onDone={setDone}
              />
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

function CreateApplication({ onCreated }: { onCreated: (key: string) => void }) {
  const { t } = useTranslation(['connections', 'setup']);
  const queryClient = useQueryClient();
  const choices = useQuery(choicesQuery);
  const [name, setName] = useState('');
  const [choice, setChoice] = useState<{ permissions: string[]; pageIds: string[] }>({ permissions: [], pageIds: [] });
  const [missing, setMissing] = useState<{ name: boolean; permissions: boolean }>({ name: false, permissions: false });
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/admin/applications', { body: { name, permissions: choice.permissions, pages: choice.pageIds } })),
    onSuccess: (created) => {
      onCreated(created.key);
      setName('');
      setChoice({ permissions: [], pageIds: [] });
      void queryClient.invalidateQueries({ queryKey: ['applications'] });
    },
  });
  const serverError = useFieldErrors(create.error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const now = { name: name.trim() === '', permissions: choice.permissions.length === 0 };
    setMissing(now);
    if (now.name) event.currentTarget.querySelector<HTMLInputElement>('[name="name"]')?.focus();
    if (!now.name && !now.permissions) create.mutate();
  };
  return (
    <details className="create">
      <summary>{t('create')}</summary>
      <form onSubmit={submit} noValidate>
        <Field label={t('appName')} error={missing.name ? t('setup:nameRequired') : serverError('name')}>
          {(id, describedBy, invalid) => (
            <input
              id={id}
              name="name"
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={name}
              onChange={(event) => setName(event.target.value)}
            />
          )}
        </Field>
        {choices.data && (
          <PermissionPicker
            choices={choices.data}
            permissions={choice.permissions}
            pageIds={choice.pageIds}
            disabled={false}
            onChange={setChoice}
          />
        )}
        <ProblemMessage error={choices.error} onRetry={() => void choices.refetch()} />
        {(missing.permissions || serverError('permissions')) && (
          <p className="field-error" role="alert">
            {choice.permissions.length === 0 ? t('permissionsRequired') : serverError('permissions')}
          </p>
        )}
        <ProblemMessage error={create.error} onRetry={() => create.mutate()} />
        <button type="submit" disabled={create.isPending}>
          {t('createSubmit')}
        </button>
      </form>
    </details>
  );
}

function Application({
  application,
  maxOverlap,
  onKey,
  onDone,
}: {
  application: Schemas['AdminApplication'];
  maxOverlap: number;
  onKey: (key: string) => void;
  onDone: (message: string) => void;
}) {
  const { t } = useTranslation(['connections', 'ui']);
  const queryClient = useQueryClient();
  const [overlap, setOverlap] = useState(24);
  const [asking, setAsking] = useState(false);
  const done = () => queryClient.invalidateQueries({ queryKey: ['applications'] });
  const id = { params: { path: { id: application.id } } };
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/admin/applications/{id}/rotate', { ...id, body: { overlapHours: overlap } })),
    onSuccess: (rotated) => {
      onKey(rotated.key);
      void done();
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => unwrap(api.POST('/api/admin/keys/{id}/revoke', { params: { path: { id: keyId } } })),
    onSuccess: done,
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/admin/applications/{id}', id)),
    onSuccess: () => {
      onDone(t('removed', { name: application.name }));
      void done();
    },
  });
  const heading = `app-${application.id}`;
  return (
    <li className="application" aria-labelledby={heading}>
      <div className="title-row">
        <h2 id={heading}>{application.name}</h2>
        <Rename application={application} onRenamed={(name) => onDone(t('renamed', { name }))} />
        <ConfirmButton
          label={t('removeOf', { name: application.name })}
          question={t('removeConfirm', { name: application.name })}
          confirm={t('remove')}
          onConfirm={() => remove.mutate()}
        >
          {t('remove')}
        </ConfirmButton>
      </div>
      {application.creatorAlert && (
        <p className="alert-label" role="note">
          {t(`alerts.${application.creatorAlert}`)}: {t('alertAction')}
        </p>
      )}
      <h3 className="visually-hidden">{t('permissions')}</h3>
      <ul className="permissions">
        {application.permissions.map((permission) => (
          <li key={permission}>
            <PermissionName code={permission} />
          </li>
        ))}
      </ul>
      <div className="table-wrap">
        <table className="reflow">
          <caption className="visually-hidden">{t('keys.caption', { name: application.name })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('keys.key')}</th>
              <th scope="col">{t('keys.created')}</th>
              <th scope="col">{t('keys.lastUsed')}</th>
              <th scope="col">{t('keys.expires')}</th>
              <th scope="col">{t('keys.state')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('keys.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {application.keys.map((key) => (
              <tr key={key.id}>
                <td data-label={t('keys.key')}>
                  <code>{key.displayPrefix}</code>
                </td>
                <td data-label={t('keys.created')}>
                  <When at={key.createdAt} />
                </td>
                <td data-label={t('keys.lastUsed')}>
                  <When at={key.lastUsedAt} />
                </td>
                <td data-label={t('keys.expires')}>
                  <When at={key.expiresAt} />
                </td>
                <td data-label={t('keys.state')}>{t(`keys.states.${key.live ? 'live' : key.revokedAt ? 'revoked' : 'expired'}`)}</td>
                <td>
                  {key.live && (
                    <ConfirmButton
                      label={t('keys.revokeOf', { prefix: key.displayPrefix })}
                      question={t('keys.revokeConfirm', { prefix: key.displayPrefix })}
                      confirm={t('keys.revoke')}
                      onConfirm={() => revoke.mutate(key.id)}
                    >
                      {t('keys.revoke')}
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        className="rotate"
        onSubmit={(event) => {
          event.preventDefault();
          setAsking(true);
        }}
      >
        <Field label={t('overlap')} hint={t('overlapHint', { max: maxOverlap })}>
          {(inputId, hint) => (
            <input
              id={inputId}
              type="number"
              min={0}
              max={maxOverlap}
              aria-describedby={hint}
              value={overlap}
              onChange={(event) => setOverlap(Number(event.target.value))}
            />
          )}
        </Field>
        <button type="submit" className="secondary">
          {t('rotate')}
        </button>
      </form>
      <Confirm
        open={asking}
        question={
          overlap > 0 ? t('rotateConfirm', { name: application.name, hours: overlap }) : t('rotateConfirmNow', { name: application.name })
        }
        confirm={t('rotate')}
        onConfirm={() => rotate.mutate()}
        onClose={() => setAsking(false)}
      />
      <ProblemMessage error={rotate.error} onRetry={() => rotate.mutate()} />
      <ProblemMessage error={revoke.error} onRetry={() => revoke.mutate(revoke.variables!)} />
      <ProblemMessage error={remove.error} onRetry={() => remove.mutate()} />
    </li>
  );
}

/** The application's name, changed in place. */
function Rename({ application, onRenamed }: { application: Schemas['AdminApplication']; onRenamed: (name: string) => void }) {
  const { t } = useTranslation(['connections', 'setup', 'common']);
  const queryClient = useQueryClient();
  const [name, setName] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const rename = useMutation({
    mutationFn: (next: string) =>
      unwrap(api.PATCH('/api/admin/applications/{id}', { params: { path: { id: application.id } }, body: { name: next } })),
    onSuccess: (renamed) => {
      setName(null);
      onRenamed(renamed.name);
      void queryClient.invalidateQueries({ queryKey: ['applications'] });
    },
  });
  const serverError = useFieldErrors(rename.error);
  if (name === null) {
    return (
      <button
        type="button"
        className="secondary"
        aria-label={t('renameOf', { name: application.name })}
        onClick={() => setName(application.name)}
      >
        {t('rename')}
      </button>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setMissing(name.trim() === '');
    if (name.trim() !== '') rename.mutate(name);
  };
  return (
    <form className="inline" onSubmit={submit} noValidate aria-label={t('renameOf', { name: application.name })}>
      <Field label={t('appName')} error={missing ? t('setup:nameRequired') : serverError('name')}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        )}
      </Field>
      <button type="submit" disabled={rename.isPending}>
        {t('common:save')}
      </button>
      <button type="button" className="secondary" onClick={() => setName(null)}>
        {t('common:cancel')}
      </button>
      <ProblemMessage error={rename.error} onRetry={() => rename.mutate(name)} />
    </form>
  );
}
