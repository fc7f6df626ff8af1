import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../session';
import { Field, Loaded, ProblemMessage, SetupPart } from '../ui';
import { CarrierConnections } from './CarrierConnections';
import { ChatPages } from './ChatPages';
import { StatusMatrix } from './StatusMatrix';

type PaymentMethodKind = Schemas['PaymentMethod']['kind'];
/** The kinds the admin API declares (its generated type): a kind added or dropped there fails the build here. */
const KINDS = Object.keys({ cash: 0, bank_transfer: 0, card: 0, cod: 0, wallet: 0, other: 0 } satisfies Record<PaymentMethodKind, 0>);

/** What a new shop sets up before it takes orders; each part shows what the member may read, and offers changes they may make. */
export function SetupScreen() {
  const { holds } = useSession();
  const sales = holds('settings.sales_channels');
  return (
    <section aria-labelledby="setup-title" className="setup">
      <h1 id="setup-title">Shop set-up</h1>
      <SetupList
        title="Warehouses"
        queryKey="warehouses"
        mayAdd={holds('pos.inventory.update')}
        load={() => unwrap(api.GET('/api/admin/warehouses'))}
        add={(name, extra) => unwrap(api.POST('/api/admin/warehouses', { body: { name, address: extra || null } }))}
        extra={{ label: 'Address', options: null }}
        describe={(row) => String(row.address ?? '')}
      />
      <SetupList
        title="Tags"
        queryKey="tags"
        mayAdd={sales}
        load={() => unwrap(api.GET('/api/admin/tags'))}
        add={(name) => unwrap(api.POST('/api/admin/tags', { body: { name } }))}
      />
      <SetupList
        title="Payment methods"
        queryKey="payment-methods"
        mayAdd={sales}
        load={() => unwrap(api.GET('/api/admin/payment-methods'))}
        add={(name, kind) =>
          unwrap(api.POST('/api/admin/payment-methods', { body: { name, kind: (kind || 'other') as PaymentMethodKind } }))
        }
        extra={{ label: 'Kind', options: KINDS }}
        describe={(row) => String(row.kind)}
      />
      <SetupList
        title="Sales channels"
        queryKey="sales-channels"
        mayAdd={sales}
        load={() => unwrap(api.GET('/api/admin/sales-channels'))}
        add={(name) => unwrap(api.POST('/api/admin/sales-channels', { body: { name } }))}
      />
      <CarrierConnections />
      <ChatPages />
      <StatusMatrix />
    </section>
  );
}

type Row = { id: string; name: string } & Record<string, unknown>;

/** One set-up list with its add form (a name, and one more field when `extra` says so). */
function SetupList(props: {
  title: string;
  queryKey: string;
  mayAdd: boolean;
  load: () => Promise<{ data: Row[] }>;
  add: (name: string, extra: string) => Promise<unknown>;
  extra?: { label: string; options: readonly string[] | null };
  describe?: (row: Row) => string;
}) {
  const queryClient = useQueryClient();
  const list = useQuery({ queryKey: ['setup', props.queryKey], queryFn: props.load });
  const [name, setName] = useState('');
  const [extra, setExtra] = useState(props.extra?.options?.[0] ?? '');
  const add = useMutation({
    mutationFn: () => props.add(name, extra),
    onSuccess: () => {
      setName('');
      void queryClient.invalidateQueries({ queryKey: ['setup', props.queryKey] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <SetupPart title={props.title}>
      <Loaded query={{ ...list, data: list.data?.data }} empty={`No ${props.title.toLowerCase()} yet.`}>
        {(rows) => (
          <ul className="plain">
            {rows.map((row) => (
              <li key={row.id}>
                {row.name} {props.describe && <span className="muted">{props.describe(row)}</span>}
              </li>
            ))}
          </ul>
        )}
      </Loaded>
      {props.mayAdd && (
        <form className="inline" onSubmit={submit} aria-label={`Add to ${props.title.toLowerCase()}`}>
          <Field label="Name">{(id) => <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />}</Field>
          {props.extra && (
            <Field label={props.extra.label}>
              {(id) =>
                props.extra!.options ? (
                  <select id={id} value={extra} onChange={(event) => setExtra(event.target.value)}>
                    {props.extra!.options.map((option) => (
                      <option key={option}>{option}</option>
                    ))}
                  </select>
                ) : (
                  <input id={id} value={extra} onChange={(event) => setExtra(event.target.value)} />
                )
              }
            </Field>
          )}
          <button type="submit" disabled={add.isPending}>
            Add
          </button>
          <ProblemMessage error={add.error} />
        </form>
      )}
    </SetupPart>
  );
}
