import { normalizeAddress, type Address, type AddressInput } from '../geography/index.js';
import {
  escapeLike,
  normalizePhone,
  Problem,
  syncedPage,
  type CursorBinding,
  type Fragment,
  type ListQuery,
  type Page,
} from '../kernel/index.js';
import { recordUpdate, writeEvent } from '../events/index.js';
import type { Tx } from '../kernel/index.js';
import type { ContactInput, CustomerAddress, CustomerChanges, CustomerDetail, CustomerRow, NewCustomer } from './customer-shapes.js';

export interface CustomerFilters {
  phone?: string;
  search?: string;
}

const ROW_COLUMNS = (tx: Tx) => tx`
  c.id, c.name, c.gender, to_char(c.date_of_birth, 'YYYY-MM-DD') as date_of_birth, c.source, c.is_blocked,
  (select value from customer_contacts k where k.customer_id = c.id and k.kind = 'phone' and k.is_primary) as primary_phone,
  (select value from customer_contacts k where k.customer_id = c.id and k.kind = 'email' and k.is_primary) as primary_email,
  api_time(c.created_at) as created_at, api_time(c.updated_at) as updated_at, api_time(c.deleted_at) as deleted_at`;

/** `GET /customers`: sorted by (updatedAt, id); `phone` exact in any accepted form; `search` in names. */
export async function listCustomers(
  tx: Tx,
  query: ListQuery & CustomerFilters,
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<CustomerRow>> {
  return syncedPage<CustomerRow>(
    tx,
    {
      table: 'c',
      column: 'updated_at',
      softDelete: true,
      source: tx`customers c`,
      columns: ROW_COLUMNS(tx),
      filters: () => [
        // Normalised here, after the cursor is accepted: a bad cursor is refused first.
        ...(query.phone === undefined
          ? []
          : [
              tx`exists (select 1 from customer_contacts k where k.customer_id = c.id and k.kind = 'phone' and k.value = ${storedPhoneOrNone(query.phone)})`,
            ]),
        ...(query.search ? [tx`lower(c.name) like ${`%${escapeLike(query.search.toLowerCase())}%`}`] : []),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}

/** `GET /customers/{id}`: contacts, and addresses most recently used first. 404 for another shop's id. */
export async function getCustomer(tx: Tx, id: string): Promise<CustomerDetail> {
  const [customer] = await tx<CustomerDetail[]>`
    select ${ROW_COLUMNS(tx)},
      coalesce((select json_agg(json_build_object('id', k.id, 'kind', k.kind, 'value', k.value, 'isPrimary', k.is_primary) order by k.kind desc, k.is_primary desc, k.created_at)
                from customer_contacts k where k.customer_id = c.id), '[]') as contacts,
      coalesce((select json_agg(json_build_object(
                  'id', a.id, 'recipientName', a.recipient_name, 'recipientPhone', a.recipient_phone, 'addressLine', a.address_line,
                  'geoSystem', a.geo_system, 'provinceUnitId', a.province_unit_id, 'districtUnitId', a.district_unit_id, 'wardUnitId', a.ward_unit_id,
                  'provinceName', a.province_name, 'districtName', a.district_name, 'wardName', a.ward_name) order by a.last_used_at desc, a.created_at desc)
                from customer_addresses a where a.customer_id = c.id), '[]') as addresses
    from customers c where c.id = ${id}`;
  if (!customer) throw new Problem('not-found', `no customer ${id}`);
  return customer;
}

/** A customer with phone contacts; emits only `customer.created`. A phone another customer holds is 409. */
export async function createCustomer(tx: Tx, shopId: string, input: NewCustomer): Promise<CustomerDetail> {
  const phones = normalizeContacts(input.contacts ?? []);
  await assertPhonesFree(
    tx,
    phones.map((phone) => phone.value),
  );
  const [created] = await tx<{ id: string }[]>`
    insert into customers (shop_id, name, gender, date_of_birth, source)
    values (${shopId}, ${input.name}, ${input.gender ?? null}, ${input.dateOfBirth ?? null}, 'manual')
    returning id`;
  for (const phone of phones) {
    await tx`insert into customer_contacts (shop_id, customer_id, kind, value, is_primary) values (${shopId}, ${created!.id}, 'phone', ${phone.value}, ${phone.isPrimary})`;
  }
  const detail = await getCustomer(tx, created!.id);
  await writeEvent(tx, { shopId, type: 'customer.created', resourceId: detail.id, data: detail });
  return detail;
}

/** `PATCH /customers/{id}`: name, gender, date of birth. `customer.updated` only when one of them changed. */
export async function updateCustomer(tx: Tx, shopId: string, id: string, changes: CustomerChanges): Promise<CustomerDetail> {
  const before = await lockedLiveCustomer(tx, id);
  const name = changes.name ?? before.name;
  const gender = changes.gender === undefined ? before.gender : changes.gender;
  const dateOfBirth = changes.dateOfBirth === undefined ? before.dateOfBirth : changes.dateOfBirth;
  // A no-op PATCH writes nothing: updatedAt moves only with a change, so syncs see no phantom row.
  await tx`
    update customers set name = ${name}, gender = ${gender}, date_of_birth = ${dateOfBirth}, updated_at = clock_timestamp()
    where id = ${id} and (name, gender, date_of_birth) is distinct from (${name}, ${gender}, ${dateOfBirth}::date)`;
  return finishUpdate(tx, shopId, before);
}

/** `POST /customers/{id}/addresses`: unit ids checked against the hierarchy; an identical address is 409. */
export async function addCustomerAddress(
  tx: Tx,
  shopId: string,
  customerId: string,
  input: AddressInput & { addressLine: string },
): Promise<CustomerAddress> {
  const before = await lockedLiveCustomer(tx, customerId);
  const address = await normalizeAddress(tx, input);
  const identical = before.addresses.find((existing) => sameAddress(existing, address));
  if (identical)
    throw new Problem('conflict', `the customer already has this address (${identical.id})`, { extra: { addressId: identical.id } });
  const [row] = await tx<{ id: string }[]>`
    insert into customer_addresses (shop_id, customer_id, recipient_name, recipient_phone, address_line, geo_system,
      province_unit_id, district_unit_id, ward_unit_id, province_name, district_name, ward_name)
    values (${shopId}, ${customerId}, ${address.recipientName}, ${address.recipientPhone}, ${address.addressLine}, ${address.geoSystem},
      ${address.provinceUnitId}, ${address.districtUnitId}, ${address.wardUnitId}, ${address.provinceName}, ${address.districtName}, ${address.wardName})
    returning id`;
  await tx`update customers set updated_at = clock_timestamp() where id = ${customerId}`;
  await finishUpdate(tx, shopId, before);
  return { id: row!.id, ...address };
}

/**
 * An order used this address (identical, as `POST …/addresses` compares): it becomes the most
 * recently used and leads `addresses`. Brought to the front, it changes `addresses`: `updatedAt`
 * moves and `customer.updated` says so; already in front, nothing the customer shows changed
 * (docs/behaviour/hardening.md).
 */
export async function markAddressUsed(tx: Tx, shopId: string, customerId: string, address: Address): Promise<void> {
  const before = await getCustomer(tx, customerId);
  const used = before.addresses.find((existing) => sameAddress(existing, address));
  if (!used) return;
  await tx`update customer_addresses set last_used_at = clock_timestamp() where id = ${used.id}`;
  if (before.addresses[0]?.id === used.id) return;
  await tx`update customers set updated_at = clock_timestamp() where id = ${customerId}`;
  await finishUpdate(tx, shopId, before);
}

/**
 * The shop's staff set a customer's phones and e-mails (the admin API and CLI; the Open API changes
 * none): the set sent replaces the stored one, a contact kept keeps its id, and a phone another live
 * customer holds is 409 as on creation. A change raises `updatedAt` (spec, synchronisation rule 3)
 * and emits `customer.updated` with `contacts`, and `primaryPhone`/`primaryEmail` when they moved.
 */
export async function setCustomerContacts(tx: Tx, shopId: string, id: string, contacts: readonly ContactInput[]): Promise<CustomerDetail> {
  const before = await lockedLiveCustomer(tx, id);
  const wanted = normalizeContacts(contacts);
  await assertPhonesFree(
    tx,
    wanted.filter((contact) => contact.kind === 'phone').map((contact) => contact.value),
    id,
  );
  const key = (contact: StoredContact) => `${contact.kind}:${contact.value}`;
  const asHeld = (set: readonly StoredContact[]) =>
    set
      .map((contact) => `${key(contact)}:${contact.isPrimary}`)
      .sort()
      .join('\n');
  if (asHeld(before.contacts) !== asHeld(wanted)) {
    const removed = before.contacts.filter((contact) => !wanted.some((kept) => key(kept) === key(contact)));
    if (removed.length > 0) await tx`delete from customer_contacts where id = any(${removed.map((contact) => contact.id)})`;
    // One primary per kind (customer_contacts_one_primary) at every moment: none, then the new ones.
    await tx`update customer_contacts set is_primary = false where customer_id = ${id} and is_primary`;
    for (const contact of wanted) {
      await tx`
        insert into customer_contacts (shop_id, customer_id, kind, value, is_primary)
        values (${shopId}, ${id}, ${contact.kind}, ${contact.value}, ${contact.isPrimary})
        on conflict (customer_id, kind, value) do update set is_primary = excluded.is_primary`;
    }
    await tx`update customers set updated_at = clock_timestamp() where id = ${id}`;
  }
  return finishUpdate(tx, shopId, before);
}

/** Soft delete by the shop's staff: the record stays with `deletedAt`, which `customer.deleted` carries; deleted already is 404. */
export async function deleteCustomer(tx: Tx, shopId: string, id: string): Promise<CustomerDetail> {
  await lockedLiveCustomer(tx, id);
  await tx`update customers set deleted_at = clock_timestamp(), updated_at = clock_timestamp() where id = ${id}`;
  const after = await getCustomer(tx, id);
  await writeEvent(tx, { shopId, type: 'customer.deleted', resourceId: id, data: after });
  return after;
}

/** Whether the customer is blocked (orders refuse one); false for no customer of the shop. */
export async function isCustomerBlocked(tx: Tx, customerId: string): Promise<boolean> {
  const [customer] = await tx<{ isBlocked: boolean }[]>`select is_blocked from customers where id = ${customerId}`;
  return customer?.isBlocked ?? false;
}

/**
 * A filter's phone as stored, or null (matching no row) for a number of the accepted form that
 * libphonenumber says does not exist: no customer can hold it, so the list is empty, not a 400.
 */
function storedPhoneOrNone(phone: string): string | null {
  try {
    return normalizePhone(phone, 'phone');
  } catch {
    return null;
  }
}

/** The live customer holding `phone` (already normalised) as a phone contact; undefined when none does. */
export async function customerIdByPhone(tx: Tx, phone: string): Promise<string | undefined> {
  const [holder] = await tx<{ customerId: string }[]>`
    select k.customer_id from customer_contacts k join customers c on c.id = k.customer_id
    where k.kind = 'phone' and k.value = ${phone} and c.deleted_at is null
    order by k.is_primary desc, k.created_at limit 1`;
  return holder?.customerId;
}

/** A `from` item of the shop's customers not deleted (column `id`), for another module's reference checks. */
export function liveCustomers(tx: Tx): Fragment {
  return tx`(select id from customers where deleted_at is null)`;
}

/** The customer to change, locked: a deleted customer is 404, as nothing of it changes any more (as for products). */
async function lockedLiveCustomer(tx: Tx, id: string): Promise<CustomerDetail> {
  const [row] = await tx<{ deletedAt: Date | null }[]>`select deleted_at from customers where id = ${id} for update`;
  if (!row || row.deletedAt) throw new Problem('not-found', `no customer ${id}`);
  return getCustomer(tx, id);
}

async function finishUpdate(tx: Tx, shopId: string, before: CustomerDetail): Promise<CustomerDetail> {
  const after = await getCustomer(tx, before.id);
  await recordUpdate(tx, { shopId, resource: 'customer', resourceId: before.id, before, after });
  return after;
}

type StoredContact = Omit<CustomerDetail['contacts'][number], 'id'>;

/**
 * Contacts as stored, each once: phones as `+84…`, e-mails in lower case. Of each kind one is
 * primary: the one sent with isPrimary, else the first.
 */
function normalizeContacts(contacts: readonly ContactInput[]): StoredContact[] {
  const unique = new Map<string, StoredContact>();
  contacts.forEach((contact, index) => {
    const value = contact.kind === 'phone' ? normalizePhone(contact.value, `contacts.${index}.value`) : contact.value.toLowerCase();
    const held = unique.get(`${contact.kind}:${value}`);
    unique.set(`${contact.kind}:${value}`, { kind: contact.kind, value, isPrimary: Boolean(held?.isPrimary || contact.isPrimary) });
  });
  const stored = [...unique.values()];
  for (const kind of ['phone', 'email'] as const) {
    const ofKind = stored.filter((contact) => contact.kind === kind);
    const primaries = ofKind.filter((contact) => contact.isPrimary);
    if (primaries.length > 1)
      throw new Problem('validation-failed', `at most one ${kind} can be primary`, {
        errors: [{ path: 'contacts', message: 'more than one isPrimary' }],
      });
    if (primaries.length === 0 && ofKind[0]) ofKind[0].isPrimary = true;
  }
  return stored;
}

/**
 * 409 when another live customer (than `customerId`, the one being edited) holds one of `phones`.
 * The answer names only the caller's own number, never the holder: a key that may create customers
 * but not read them learns no one's id.
 */
async function assertPhonesFree(tx: Tx, phones: string[], customerId?: string): Promise<void> {
  if (phones.length === 0) return;
  const [holder] = await tx<{ value: string }[]>`
    select k.value from customer_contacts k join customers c on c.id = k.customer_id
    where k.kind = 'phone' and k.value = any(${phones}) and c.deleted_at is null ${customerId ? tx`and c.id <> ${customerId}` : tx``}
    limit 1`;
  if (holder) throw new Problem('conflict', `a customer with the phone number ${holder.value} already exists`);
}

function sameAddress(a: Address, b: Address): boolean {
  const norm = (value: string | null | undefined) => (value ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  const fields = [
    'recipientName',
    'recipientPhone',
    'addressLine',
    'provinceUnitId',
    'districtUnitId',
    'wardUnitId',
    'provinceName',
    'districtName',
    'wardName',
  ] as const;
  return fields.every((field) => norm(a[field]) === norm(b[field]));
}
