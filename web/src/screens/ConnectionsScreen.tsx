import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { catalogueQuery } from '../api/catalogue';
import { Field, Loaded, ProblemMessage, ShownOnce, When } from '../ui';
import { PermissionPicker } from './PermissionPicker';

const applicationsQuery = { queryKey: ['applications'], queryFn: () => unwrap(api.GET('/api/admin/applications')) };

const ALERTS: Record<string, string> = {
  left: 'Its creator has left the shop',
  disabled: 'Its creator’s account is disabled',
  locked: 'Its creator’s account is locked',
  'password-changed': 'Its creator changed their password since',
};

/** API connections: applications with their keys; create, rotate with overlap, revoke. */
export function ConnectionsScreen() {
  const applications = useQuery(applicationsQuery);
  const [issued, setIssued] = useState<{ label: string; key: string } | null>(null);
  const limits = applications.data?.limits;
  const count = applications.data?.data.length ?? 0;
  return (
    <section aria-labelledby="connections-title">
      <h1 id="connections-title">API connections</h1>
      {limits && (
        <p className="note">
          {count} of {limits.applications} applications; at most {limits.liveKeys} live keys each.
        </p>
      )}
      {issued && <ShownOnce label={issued.label} value={issued.key} />}
      {limits && count < limits.applications && <CreateApplication onCreated={(key) => setIssued({ label: 'New API key', key })} />}
      <Loaded query={{ ...applications, data: applications.data?.data }} empty="No connection applications yet.">
        {(rows) => (
          <ul className="applications">
            {rows.map((application) => (
              <Application
                key={application.id}
                application={application}
                maxOverlap={limits!.overlapHours}
                onKey={(key) => setIssued({ label: `New key of ${application.name}`, key })}
              />
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

function CreateApplication({ onCreated }: { onCreated: (key: string) => void }) {
  const queryClient = useQueryClient();
  const catalogue = useQuery(catalogueQuery);
  const [name, setName] = useState('');
  const [choice, setChoice] = useState<{ permissions: string[]; pageIds: string[] }>({ permissions: [], pageIds: [] });
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
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <details className="create">
      <summary>Create a connection application</summary>
      <form onSubmit={submit}>
        <Field label="Application name">
          {(id) => <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        {catalogue.data && (
          <PermissionPicker
            catalogue={catalogue.data}
            permissions={choice.permissions}
            pageIds={choice.pageIds}
            disabled={false}
            onChange={setChoice}
          />
        )}
        <ProblemMessage error={create.error} />
        <button type="submit" disabled={create.isPending || choice.permissions.length === 0}>
          Create and show its key
        </button>
      </form>
    </details>
  );
}

function Application({
  application,
  maxOverlap,
  onKey,
}: {
  application: Schemas['AdminApplication'];
  maxOverlap: number;
  onKey: (key: string) => void;
}) {
  const queryClient = useQueryClient();
  const [overlap, setOverlap] = useState(24);
  const done = () => queryClient.invalidateQueries({ queryKey: ['applications'] });
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/admin/applications/{id}/rotate', { params: { path: { id: application.id } }, body: { overlapHours: overlap } }),
      ),
    onSuccess: (rotated) => {
      onKey(rotated.key);
      void done();
    },
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => unwrap(api.POST('/api/admin/keys/{id}/revoke', { params: { path: { id: keyId } } })),
    onSuccess: done,
  });
  return (
    <li className="application" aria-labelledby={`app-${application.id}`}>
      <h2 id={`app-${application.id}`}>{application.name}</h2>
      {application.creatorAlert && (
        <p className="alert-label" role="note">
          {ALERTS[application.creatorAlert]}: rotate or revoke its keys.
        </p>
      )}
      <p className="permissions">{application.permissions.join(', ')}</p>
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Keys of {application.name}</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {application.keys.map((key) => (
              <tr key={key.id}>
                <td>
                  <code>{key.displayPrefix}</code>
                </td>
                <td>
                  <When at={key.createdAt} />
                </td>
                <td>
                  <When at={key.lastUsedAt} />
                </td>
                <td>
                  <When at={key.expiresAt} />
                </td>
                <td>{key.live ? 'live' : key.revokedAt ? 'revoked' : 'expired'}</td>
                <td>
                  {key.live && (
                    <button
                      type="button"
                      className="danger"
                      onClick={() => window.confirm(`Revoke ${key.displayPrefix}? It stops working at once.`) && revoke.mutate(key.id)}
                    >
                      Revoke
                    </button>
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
          rotate.mutate();
        }}
      >
        <Field label="Overlap (hours)" hint={`0–${maxOverlap}: how long the current keys keep working`}>
          {(id, hint) => (
            <input
              id={id}
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
          Rotate key
        </button>
      </form>
      <ProblemMessage error={rotate.error ?? revoke.error} />
    </li>
  );
}
