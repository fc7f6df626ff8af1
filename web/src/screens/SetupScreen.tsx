import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { useSession } from '../session';
import { ConfirmButton, Field, Loaded, ProblemMessage, SetupPart, useFieldErrors } from '../ui';
import { CarrierConnections } from './CarrierConnections';
import { ChatPages } from './ChatPages';
import { StatusMatrix } from './StatusMatrix';

type PaymentMethodKind = Schemas['PaymentMethod']['kind'];
/** The kinds the admin API declares (its generated type): a kind added or dropped there fails the build here. */
const KINDS = Object.keys({ cash: 0, bank_transfer: 0, card: 0, cod: 0, wallet: 0, other: 0 } satisfies Record<
  PaymentMethodKind,
  0
>) as PaymentMethodKind[];

const path = (id: string) => ({ params: { path: { id } } });

/** What a new shop sets up before it takes orders; each part shows what the member may read, and offers changes they may make. */
export function SetupScreen() {
  const { t } = useTranslation('setup');
  const { holds } = useSession();
  const sales = holds('settings.sales_channels');
  return (
    <section aria-labelledby="setup-title" className="setup">
      <h1 id="setup-title">{t('title')}</h1>
      <SetupList
        list="warehouses"
        mayManage={holds('pos.inventory.update')}
        load={() => unwrap(api.GET('/api/admin/warehouses'))}
        add={(name, address) => unwrap(api.POST('/api/admin/warehouses', { body: { name, address: address || null } }))}
        update={(id, name, address) =>
          unwrap(api.PATCH('/api/admin/warehouses/{id}', { ...path(id), body: { name, address: address || null } }))
        }
        remove={(id) => unwrap(api.DELETE('/api/admin/warehouses/{id}', path(id)))}
        extra={{ label: t('address'), of: (row) => String(row.address ?? ''), options: null }}
      />
      <SetupList
        list="tags"
        mayManage={sales}
        load={() => unwrap(api.GET('/api/admin/tags'))}
        add={(name) => unwrap(api.POST('/api/admin/tags', { body: { name } }))}
        update={(id, name) => unwrap(api.PATCH('/api/admin/tags/{id}', { ...path(id), body: { name } }))}
        remove={(id) => unwrap(api.DELETE('/api/admin/tags/{id}', path(id)))}
      />
      <SetupList
        list="paymentMethods"
        mayManage={sales}
        load={() => unwrap(api.GET('/api/admin/payment-methods'))}
        add={(name, kind) => unwrap(api.POST('/api/admin/payment-methods', { body: { name, kind: kind as PaymentMethodKind } }))}
        update={(id, name, kind) =>
          unwrap(api.PATCH('/api/admin/payment-methods/{id}', { ...path(id), body: { name, kind: kind as PaymentMethodKind } }))
        }
        remove={(id) => unwrap(api.DELETE('/api/admin/payment-methods/{id}', path(id)))}
        extra={{ label: t('kind'), of: (row) => String(row.kind), options: KINDS }}
      />
      <SetupList
        list="salesChannels"
        mayManage={sales}
        load={() => unwrap(api.GET('/api/admin/sales-channels'))}
        add={(name) => unwrap(api.POST('/api/admin/sales-channels', { body: { name } }))}
        update={(id, name) => unwrap(api.PATCH('/api/admin/sales-channels/{id}', { ...path(id), body: { name } }))}
        remove={(id) => unwrap(api.DELETE('/api/admin/sales-channels/{id}', path(id)))}
      />
      <CarrierConnections />
      <ChatPages />
      <StatusMatrix />
    </section>
  );
}

type Row = { id: string; name: string } & Record<string, unknown>;
type ListName = 'warehouses' | 'tags' | 'paymentMethods' | 'salesChannels';
/** The one field a list has besides the name: a free text (`options` null) or a choice of payment kinds. */
type Extra = { label: string; of: (row: Row) => string; options: PaymentMethodKind[] | null };

interface SetupListProps {
  list: ListName;
  mayManage: boolean;
  load: () => Promise<{ data: Row[] }>;
  add: (name: string, extra: string) => Promise<unknown>;
  update: (id: string, name: string, extra: string) => Promise<unknown>;
  remove: (id: string) => Promise<unknown>;
  extra?: Extra;
}

/** One set-up list: its entries, each renamed or removed in place, and the form adding one. */
function SetupList(props: SetupListProps) {
  const { t } = useTranslation('setup');
  const queryClient = useQueryClient();
  const queryKey = ['setup', props.list];
  const entries = useQuery({ queryKey, queryFn: props.load });
  const [done, setDone] = useState<string | null>(null);
  const changed = (message: string) => {
    setDone(message);
    void queryClient.invalidateQueries({ queryKey });
  };
  const words = t(`lists.${props.list}`, { returnObjects: true });
  return (
    <SetupPart title={words.title}>
      <Loaded query={{ ...entries, data: entries.data?.data }} empty={words.empty}>
        {(rows) => (
          <ul className="plain entries">
            {rows.map((row) => (
              <Entry key={row.id} row={row} props={props} onChanged={changed} />
            ))}
          </ul>
        )}
      </Loaded>
      {done && (
        <p role="status" className="saved">
          {done}
        </p>
      )}
      {props.mayManage && (
        <EntryForm
          label={words.add}
          extra={props.extra}
          initial={{ name: '', extra: props.extra?.options?.[0] ?? '' }}
          submitLabel={t('add')}
          save={({ name, extra }) => props.add(name, extra)}
          onSaved={({ name }) => changed(t('added', { name }))}
          resetOnSuccess
        />
      )}
    </SetupPart>
  );
}

/** An entry: its name and detail, and for a member who may, Edit (in place) and Remove (once confirmed). */
function Entry({ row, props, onChanged }: { row: Row; props: SetupListProps; onChanged: (message: string) => void }) {
  const { t } = useTranslation(['setup', 'ui', 'common']);
  const [editing, setEditing] = useState(false);
  const remove = useMutation({ mutationFn: () => props.remove(row.id), onSuccess: () => onChanged(t('removed', { name: row.name })) });
  const detail = props.extra && props.extra.of(row);
  if (editing) {
    return (
      <li>
        <EntryForm
          label={t('editing', { name: row.name })}
          extra={props.extra}
          initial={{ name: row.name, extra: detail ?? '' }}
          submitLabel={t('common:save')}
          save={({ name, extra }) => props.update(row.id, name, extra)}
          onSaved={({ name }) => {
            setEditing(false);
            onChanged(t('saved', { name }));
          }}
          onCancel={() => setEditing(false)}
        />
      </li>
    );
  }
  return (
    <li>
      <div className="entry">
        <span>
          {row.name} {detail && <span className="muted">{props.extra!.options ? t(`kinds.${detail as PaymentMethodKind}`) : detail}</span>}
        </span>
        {props.mayManage && (
          <span className="entry-actions">
            <button type="button" className="secondary" aria-label={t('editOf', { name: row.name })} onClick={() => setEditing(true)}>
              {t('ui:edit')}
            </button>
            <ConfirmButton
              label={t('removeOf', { name: row.name })}
              question={t('removeConfirm', { name: row.name })}
              confirm={t('ui:remove')}
              onConfirm={() => remove.mutate()}
              disabled={remove.isPending}
            >
              {t('ui:remove')}
            </ConfirmButton>
          </span>
        )}
      </div>
      <ProblemMessage error={remove.error} onRetry={() => remove.mutate()} />
    </li>
  );
}

type EntryInput = { name: string; extra: string };

/** The name (and the list's other field) of a new or renamed entry; errors beside the field they concern. */
function EntryForm({
  label,
  extra,
  initial,
  submitLabel,
  save,
  onSaved,
  onCancel,
  resetOnSuccess = false,
}: {
  label: string;
  extra: Extra | undefined;
  initial: EntryInput;
  submitLabel: string;
  save: (input: EntryInput) => Promise<unknown>;
  onSaved: (input: EntryInput) => void;
  onCancel?: () => void;
  resetOnSuccess?: boolean;
}) {
  const { t } = useTranslation(['setup', 'common']);
  const [input, setInput] = useState(initial);
  const mutation = useMutation({
    mutationFn: save,
    // The form is empty again as the confirmation shows: what is typed next is kept.
    onSuccess: (_, saved) => {
      if (resetOnSuccess) setInput(initial);
      onSaved(saved);
    },
  });
  const [nameMissing, setNameMissing] = useState(false);
  const serverError = useFieldErrors(mutation.error);
  const extraPath = extra?.options ? 'kind' : 'address';
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const missing = input.name.trim() === '';
    setNameMissing(missing);
    if (missing) {
      event.currentTarget.querySelector<HTMLInputElement>('[name="name"]')?.focus();
      return;
    }
    mutation.mutate(input);
  };
  return (
    <form className="inline" onSubmit={submit} noValidate aria-label={label}>
      <Field label={t('name')} error={nameMissing ? t('nameRequired') : serverError('name')}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            name="name"
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            value={input.name}
            onChange={(event) => setInput({ ...input, name: event.target.value })}
          />
        )}
      </Field>
      {extra && (
        <Field label={extra.label} error={serverError(extraPath)}>
          {(id, describedBy, invalid) =>
            extra.options ? (
              <select
                id={id}
                aria-describedby={describedBy}
                value={input.extra}
                onChange={(event) => setInput({ ...input, extra: event.target.value })}
              >
                {extra.options.map((option) => (
                  <option key={option} value={option}>
                    {t(`kinds.${option}`)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                value={input.extra}
                onChange={(event) => setInput({ ...input, extra: event.target.value })}
              />
            )
          }
        </Field>
      )}
      <button type="submit" disabled={mutation.isPending}>
        {submitLabel}
      </button>
      {onCancel && (
        <button type="button" className="secondary" onClick={onCancel}>
          {t('common:cancel')}
        </button>
      )}
      <ProblemMessage error={mutation.error} onRetry={() => mutation.mutate(input)} />
    </form>
  );
}
