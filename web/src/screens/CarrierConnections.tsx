import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useSession } from '../session';
import { ConfirmButton, Field, Loaded, ProblemMessage, ShownOnce, SetupPart, useFieldErrors } from '../ui';

/** The text fields of a connection, each with the path of its value in the request (where a refusal points). */
const TEXT_FIELDS = {
  name: 'name',
  baseUrl: 'baseUrl',
  token: 'credentials.token',
  account: 'credentials.shopId',
  pickUpName: 'pickUp.name',
  phone: 'pickUp.phone',
  street: 'pickUp.street',
  ward: 'pickUp.ward',
  district: 'pickUp.district',
  province: 'pickUp.province',
} as const;
type TextField = keyof typeof TEXT_FIELDS;

type Form = Record<TextField, string> & { carrier: 'carrier_a' | 'carrier_b'; warehouseId: string };

/** Carrier connections: credentials go in (sealed), never out; the callback URL is shown once. */
export function CarrierConnections() {
  const { t } = useTranslation('setup');
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
    <SetupPart title={t('carriers.title')}>
      <Loaded query={{ ...connections, data: connections.data?.data }} empty={t('carriers.empty')}>
        {(rows) => (
          <ul className="plain">
            {rows.map((connection) => (
              <li key={connection.id} className="entry">
                <span>
                  {connection.name} <span className="muted">{t(`carriers.names.${connection.carrier}`)}</span>{' '}
                  {!connection.active && <span className="badge state-off">{t('carriers.off')}</span>}
                </span>
                {holds('settings.carriers') && connection.active && (
                  <ConfirmButton
                    label={t('carriers.disconnectOf', { name: connection.name })}
                    question={t('carriers.disconnectConfirm', { name: connection.name })}
                    confirm={t('carriers.disconnect')}
                    onConfirm={() => disconnect.mutate(connection.id)}
                  >
                    {t('carriers.disconnect')}
                  </ConfirmButton>
                )}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      <ProblemMessage error={disconnect.error} onRetry={() => disconnect.mutate(disconnect.variables!)} />
      {callbackUrl && <ShownOnce label={t('carriers.callbackUrl')} value={callbackUrl} />}
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
  const { t } = useTranslation(['setup', 'problems']);
  const warehouses = useQuery({ queryKey: ['setup', 'warehouses'], queryFn: () => unwrap(api.GET('/api/admin/warehouses')) });
  const [form, setForm] = useState<Form>({
    carrier: 'carrier_a',
    warehouseId: '',
    ...Object.fromEntries(Object.keys(TEXT_FIELDS).map((name) => [name, ''])),
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
  const [missing, setMissing] = useState<string[]>([]);
  const serverError = useFieldErrors(connect.error);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const empty = [
      ...(form.warehouseId ? [] : ['warehouseId']),
      ...Object.keys(TEXT_FIELDS).filter((name) => name !== 'ward' && !form[name as TextField].trim()),
    ];
    setMissing(empty);
    if (empty.length > 0) {
      event.currentTarget.querySelector<HTMLElement>(`[name="${empty[0]}"]`)?.focus();
      return;
    }
    connect.mutate();
  };
  const error = (name: string, path: string) =>
    missing.includes(name)
      ? t('problems:field.required')
      : serverError(name === 'account' && form.carrier === 'carrier_b' ? 'credentials.clientSource' : path);
  return (
    <details>
      <summary>{t('carriers.connect')}</summary>
      <form onSubmit={submit} className="grid-form" noValidate>
        <Field label={t('carriers.carrier')}>
          {(id) => (
            <select id={id} value={form.carrier} onChange={(event) => setForm({ ...form, carrier: event.target.value as Form['carrier'] })}>
              <option value="carrier_a">{t('carriers.names.carrier_a')}</option>
              <option value="carrier_b">{t('carriers.names.carrier_b')}</option>
            </select>
          )}
        </Field>
        <Field label={t('carriers.warehouse')} error={error('warehouseId', 'warehouseId')}>
          {(id, describedBy, invalid) => (
            <select
              id={id}
              name="warehouseId"
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={form.warehouseId}
              onChange={(event) => setForm({ ...form, warehouseId: event.target.value })}
            >
              <option value="">{t('carriers.chooseWarehouse')}</option>
              {warehouses.data?.data.map((warehouse) => (
                <option key={warehouse.id} value={warehouse.id}>
                  {warehouse.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {(Object.entries(TEXT_FIELDS) as [TextField, string][]).map(([name, path]) => (
          <Field key={name} label={t(`carriers.fields.${name}`)} error={error(name, path)}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                name={name}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                type={name === 'token' ? 'password' : 'text'}
                value={form[name]}
                onChange={(event) => setForm({ ...form, [name]: event.target.value })}
              />
            )}
          </Field>
        ))}
        <ProblemMessage error={connect.error} onRetry={() => connect.mutate()} />
        <button type="submit" disabled={connect.isPending}>
          {t('carriers.submit')}
        </button>
      </form>
    </details>
  );
}
