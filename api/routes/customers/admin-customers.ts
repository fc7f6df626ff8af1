import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { assertHolds } from '../../../domain/access/index.js';
import { CustomerContactsInput, CustomerDetail, deleteCustomer, setCustomerContacts } from '../../../domain/customers/index.js';
import { IdParams } from '../../../domain/kernel/index.js';
import { ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const tags = ['Admin: customers'];

/**
 * The customer edits that belong to the shop's staff, not to API keys (the Open API's PATCH changes
 * no phone or e-mail, and deletes no customer): a customer's contacts, and its deletion. Both need
 * pos.customers.update; each emits its event as the Open API's edits do.
 */
export const adminCustomerRoutes: FastifyPluginAsyncZod = async (app) => {
  const edit = (request: FastifyRequest, what: string) => assertHolds(request.admin.permissions, ['pos.customers.update'], what);

  app.put(
    '/customers/:id/contacts',
    {
      schema: {
        tags,
        summary: "Set the customer's phones and e-mails (customer.updated with contacts)",
        params: IdParams,
        body: CustomerContactsInput,
        response: {
          200: CustomerDetail,
          ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'conflict'),
        },
      },
    },
    (request) => {
      edit(request, "changing a customer's contacts");
      return request.inShop((tx) => setCustomerContacts(tx, request.admin.shopId, request.params.id, request.body.contacts));
    },
  );

  app.delete(
    '/customers/:id',
    {
      schema: {
        tags,
        summary: 'Soft-delete a customer (customer.deleted); it then leaves the lists but with includeDeleted',
        params: IdParams,
        response: { 200: CustomerDetail, ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found') },
      },
    },
    (request) => {
      edit(request, 'deleting a customer');
      return request.inShop((tx) => deleteCustomer(tx, request.admin.shopId, request.params.id));
    },
  );
};
