import { CustomerContactsInput, deleteCustomer, setCustomerContacts } from '../../domain/customers/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { fail, list, shopFlag, uuidFlag, type Command } from './flags.js';

/** The customer edits of the shop's staff (customers): contacts, and deletion. */
export const customerCommands: Record<string, Command> = {
  'customer:contacts': {
    usage: '--shop S --customer ID [--phones P,P] [--emails E,E]',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const customerId = uuidFlag(f, 'customer');
      // The whole set, as the admin API takes it: an absent (or empty) list leaves the customer none of that kind.
      if (f.phones === undefined && f.emails === undefined) fail('--phones or --emails is required (the set replaces every contact)');
      const contacts = [
        ...list(f.phones ?? '').map((value) => ({ kind: 'phone' as const, value })),
        ...list(f.emails ?? '').map((value) => ({ kind: 'email' as const, value })),
      ];
      const parsed = CustomerContactsInput.safeParse({ contacts });
      if (!parsed.success) fail(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
      const customer = await withShop(sql, shop.id, (tx) => setCustomerContacts(tx, shop.id, customerId, parsed.data.contacts));
      return { customerId, contacts: customer.contacts, updatedAt: customer.updatedAt };
    },
  },
  'customer:delete': {
    usage: '--shop S --customer ID',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const customerId = uuidFlag(f, 'customer');
      const customer = await withShop(sql, shop.id, (tx) => deleteCustomer(tx, shop.id, customerId));
      return { customerId, deletedAt: customer.deletedAt };
    },
  },
};
