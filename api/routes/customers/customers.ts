import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addCustomerAddress,
  createCustomer,
  CustomerAddress,
  CustomerChanges,
  CustomerDetail,
  CustomerRow,
  getCustomer,
  listCustomers,
  NewCustomer,
  updateCustomer,
} from '../../../domain/customers/index.js';
import { respondIdempotently } from '../../plugins/idempotency.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { CustomerAddressInput, IdParams, PhoneInput } from '../../../domain/kernel/index.js';
import { pageOf, softDeleteListQuery } from '../../schemas/list-query.js';
import { IDEMPOTENCY_PROBLEMS, LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const tags = ['Customers'];

/** Customers: a thin HTTP shape over domain/customers. */
export const customerRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/customers',
    {
      config: { permissions: ['pos.customers.read'] },
      schema: {
        operationId: 'listCustomers',
        tags,
        summary: 'List customers, sorted by (updatedAt, id)',
        querystring: softDeleteListQuery.extend({
          phone: PhoneInput.optional().describe('Exact phone, in any accepted form'),
          search: z.string().min(1).max(255).optional().describe('Part of the name'),
        }),
        response: { 200: pageOf(CustomerRow), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listCustomers(tx, request.query, cursorBinding(deps, request, 'customers'), request.auth.shop.recomputeCeilingSeconds),
      ),
  );

  app.get(
    '/customers/:id',
    {
      config: { permissions: ['pos.customers.read'] },
      schema: {
        operationId: 'getCustomer',
        summary: 'A customer with its contacts and addresses',
        tags,
        params: IdParams,
        response: { 200: CustomerDetail, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getCustomer(tx, request.params.id)),
  );

  app.post(
    '/customers',
    {
      config: { permissions: ['pos.customers.create'] },
      schema: {
        operationId: 'createCustomer',
        tags,
        summary: 'Create a customer',
        body: NewCustomer,
        response: { 201: CustomerDetail, ...problemResponses(WRITE_PROBLEMS, 'conflict', IDEMPOTENCY_PROBLEMS) },
      },
    },
    (request, reply) =>
      respondIdempotently(deps.sql, deps.publicBaseUrl, request, reply, 201, (tx) =>
        createCustomer(tx, request.auth.shop.id, request.body),
      ),
  );

  app.patch(
    '/customers/:id',
    {
      config: { permissions: ['pos.customers.update'] },
      schema: {
        operationId: 'updateCustomer',
        tags,
        summary: 'Change name, gender or date of birth',
        params: IdParams,
        body: CustomerChanges,
        response: { 200: CustomerDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => updateCustomer(tx, request.auth.shop.id, request.params.id, request.body)),
  );

  app.post(
    '/customers/:id/addresses',
    {
      config: { permissions: ['pos.customers.update'] },
      schema: {
        operationId: 'addCustomerAddress',
        tags,
        summary: 'Add a delivery address',
        params: IdParams,
        body: CustomerAddressInput,
        response: { 201: CustomerAddress, ...problemResponses(WRITE_PROBLEMS, 'not-found', 'conflict') },
      },
    },
    async (request, reply) => {
      const address = await request.inShop((tx) => addCustomerAddress(tx, request.auth.shop.id, request.params.id, request.body));
      return reply.status(201).send(address);
    },
  );
};
