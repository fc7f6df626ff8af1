import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { Field, Loaded, ProblemMessage, ShownOnce, SetupPart } from '../ui';

const TEXT_FIELDS = [
  ['name', 'Connection name'],
  ['baseUrl', 'Carrier API address'],
  ['token', 'API token'],
  ['account', 'Carrier shop id (A) or client source (B)'],
  ['pickUpName', 'Pick-up: sender name'],
  ['phone', 'Pick-up: phone'],
  ['street', 'Pick-up: street'],
  ['ward', 'Pick-up: ward'],
  ['district', 'Pick-up: district'],
  ['province', 'Pick-up: province'],
] as const;

type Form = Record<(typeof TEXT_FIELDS)[number][0], string> & { carrier: 'carrier_a' | 'carrier_b'; warehouseId: string };

/** Carrier connections: credentials go in (sealed), never out; the callback URL is shown once. */
export function CarrierConnections() {
  const { holds } = useSession();
  const queryClient = useQueryClient();
  const connections = useQuery({ queryKey: ['setup', 'carriers'], queryFn: () => unwrap(api.GET('/api/admin/carrier-connections')) });
  const [callbackUrl, setCallbackUrl] = useState<string | null>(null);
  const done = () => queryClient.invalidateQueries({ queryKey: ['setup', 'carriers'] });
  const disconnect = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/admin/carrier-connections/{id}', { params: { path: { id } } })),
    onSuccess: done,
  });
  return (
    <SetupPart title="Carrier connections">
      <Loaded query={{ ...connections, data: connections.data?.data }} empty="No carrier connected.">
        {(rows) => (
          <ul className="plain">
            {rows.map((connection) => (
              <li key={connection.id}>
                {connection.name} <span className="muted">{connection.carrier}</span>{' '}
                {!connection.active && <span className="badge state-off">off</span>}{' '}
                {holds('settings.carriers') && connection.active && (
                  <button type="button" className="danger" onClick={() => disconnect.mutate(connection.id)}>
                    Disconnect
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ProblemMessage error={disconnect.error} />
      {callbackUrl && <ShownOnce label="Callback URL to register at the carrier" value={callbackUrl} />}
      {holds('settings.carriers') && (
        <ConnectForm
          onConnected={(url) => {
            setCallbackUrl(url);
            void done();
          }}
        />
      )}
    </SetupPart>
  );
}

function ConnectForm({ onConnected }: { onConnected: (callbackUrl: string) => void }) {
  const warehouses = useQuery({ queryKey: ['setup', 'warehouses'], queryFn: () => unwrap(api.GET('/api/admin/warehouses')) });
  const [form, setForm] = useState<Form>({
    carrier: 'carrier_a',
    warehouseId: '',
    ...Object.fromEntries(TEXT_FIELDS.map(([name]) => [name, ''])),
  } as Form);
  const connect = useMutation({
    mutationFn: () => {
      const common = {
        name: form.name,
        warehouseId: form.warehouseId,
        baseUrl: form.baseUrl,
        pickUp: {
          name: form.pickUpName,
          phone: form.phone,
          street: form.street,
          ward: form.ward || null,
          district: form.district,
          province: form.province,
        },
      };
      const body =
        form.carrier === 'carrier_a'
          ? { ...common, carrier: 'carrier_a' as const, credentials: { token: form.token, shopId: Number(form.account) } }
          : { ...common, carrier: 'carrier_b' as const, credentials: { token: form.token, clientSource: form.account } };
      return unwrap(api.POST('/api/admin/carrier-connections', { body }));
    },
    onSuccess: (created) => onConnected(created.callbackUrl),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    connect.mutate();
  };
  return (
    <details>
      <summary>Connect a carrier</summary>
      <form onSubmit={submit} className="grid-form">
        <Field label="Carrier">
          {(id) => (
            <select id={id} value={form.carrier} onChange={(event) => setForm({ ...form, carrier: event.target.value as Form['carrier'] })}>
              <option value="carrier_a">Carrier A (GHN-style)</option>
              <option value="carrier_b">Carrier B (GHTK-style)</option>
            </select>
          )}
        </Field>
        <Field label="Pick-up warehouse">
          {(id) => (
            <select id={id} required value={form.warehouseId} onChange={(event) => setForm({ ...form, warehouseId: event.target.value })}>
              <option value="">Choose a warehouse</option>
              {warehouses.data?.data.map((warehouse) => (
                <option key={warehouse.id} value={warehouse.id}>
                  {warehouse.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {TEXT_FIELDS.map(([name, label]) => (
          <Field key={name} label={label}>
            {(id) => (
              <input
                id={id}
                required={name !== 'ward'}
                type={name === 'token' ? 'password' : 'text'}
                value={form[name]}
                onChange={(event) => setForm({ ...form, [name]: event.target.value })}
              />
            )}
          </Field>
        ))}
        <ProblemMessage error={connect.error} />
        <button type="submit" disabled={connect.isPending}>
          Connect
        </button>
      </form>
    </details>
  );
}
