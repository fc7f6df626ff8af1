import { z } from 'zod';
import { AddressSchema, CalendarDate, DateString, Name, PhoneInput, Timestamp } from '../kernel/index.js';

/**
 * The wire shapes of customers: the API answers and accepts exactly these, the customer events
 * carry them, and the module's types are inferred from them (one source for each shape).
 */
const Gender = z.enum(['male', 'female', 'other']);
const DateOfBirth = CalendarDate.describe('YYYY-MM-DD');

export const CustomerRow = z
  .object({
    id: z.uuid(),
    name: z.string(),
    gender: Gender.nullable(),
    dateOfBirth: DateString.nullable(),
    source: z.enum(['manual', 'order', 'import']),
    isBlocked: z.boolean(),
    primaryPhone: z.string().nullable(),
    primaryEmail: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: Timestamp.nullable(),
  })
  .meta({ id: 'CustomerRow' });

export const CustomerAddress = AddressSchema.extend({ id: z.uuid() }).meta({ id: 'CustomerAddress' });

export const CustomerDetail = CustomerRow.extend({
  contacts: z.array(z.object({ id: z.uuid(), kind: z.enum(['phone', 'email']), value: z.string(), isPrimary: z.boolean() })),
  addresses: z.array(CustomerAddress),
}).meta({ id: 'Customer' });

/** Contacts a customer holds at most: as sent on creation, and as the shop's staff set them. */
const MAX_CONTACTS = 20;
const PhoneContactInput = z.strictObject({ kind: z.literal('phone'), value: PhoneInput, isPrimary: z.boolean().optional() });

export const NewCustomer = z.strictObject({
  name: Name,
  gender: Gender.nullish(),
  dateOfBirth: DateOfBirth.nullish(),
  contacts: z.array(PhoneContactInput).max(MAX_CONTACTS).optional(),
});

/**
 * A customer's phones and e-mails as the shop's staff set them (the admin API and CLI; the Open API
 * changes no contact): the whole set, each kind with one primary.
 */
export const CustomerContactsInput = z.strictObject({
  contacts: z
    .array(
      z.discriminatedUnion('kind', [
        PhoneContactInput,
        z.strictObject({ kind: z.literal('email'), value: z.email().max(254), isPrimary: z.boolean().optional() }),
      ]),
    )
    .max(MAX_CONTACTS)
    .describe(
      'Replaces every contact. A contact already held (same kind and value) keeps its id; of each kind the one with isPrimary, else the first, is primary',
    ),
});

export const CustomerChanges = z.strictObject({
  name: Name.optional(),
  gender: Gender.nullish(),
  dateOfBirth: DateOfBirth.nullish(),
});

type Gender = z.infer<typeof Gender>;
export type CustomerRow = z.infer<typeof CustomerRow>;
export type CustomerAddress = z.infer<typeof CustomerAddress>;
export type CustomerDetail = z.infer<typeof CustomerDetail>;
export type NewCustomer = z.infer<typeof NewCustomer>;
export type CustomerChanges = z.infer<typeof CustomerChanges>;
export type CustomerContactsInput = z.infer<typeof CustomerContactsInput>;
export type ContactInput = CustomerContactsInput['contacts'][number];
