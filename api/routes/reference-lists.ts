import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listPages, listRoles, listStaff } from '../../domain/access/index.js';
import { listCategories } from '../../domain/catalog/index.js';
import { listWarehouses } from '../../domain/inventory/index.js';
import { listPaymentMethods, listSalesChannels, listTags, PAYMENT_METHOD_KINDS } from '../../domain/orders/index.js';
import { carrierConnectionSchema, listCarrierConnections } from '../../domain/shipments/index.js';
import type { Tx } from '../../domain/kernel/index.js';
import { READ_PROBLEMS, problemResponses } from '../schemas/problem.js';

const StaffMember = z.object({ id: z.uuid().describe('The user id; use as handlerUserId'), name: z.string() }).meta({ id: 'StaffMember' });
const Role = z.object({ id: z.uuid().describe('Use as handlerRoleId'), name: z.string() }).meta({ id: 'Role' });
const Category = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'Category' });
export const Warehouse = z.object({ id: z.uuid(), name: z.string(), address: z.string().nullable() }).meta({ id: 'Warehouse' });
export const Tag = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'Tag' });
export const PaymentMethod = z.object({ id: z.uuid(), name: z.string(), kind: z.enum(PAYMENT_METHOD_KINDS) }).meta({ id: 'PaymentMethod' });
export const SalesChannel = z.object({ id: z.uuid(), name: z.string() }).meta({ id: 'SalesChannel' });
export const ChatPage = z
  .object({
    id: z.uuid(),
    name: z.string(),
    platform: z.string(),
    connected: z.boolean().describe('false once the page was disconnected from the shop'),
  })
  .meta({ id: 'ChatPage' });

const wholeList = <T extends z.ZodType>(row: T) => z.object({ data: z.array(row) });

/** Reference lists: small, returned whole in `data` (no paging, no `nextCursor`), sorted by name. */
export const referenceListRoutes: FastifyPluginAsyncZod = async (app) => {
  const list = <T extends z.ZodType>(
    path: string,
    permission: string,
    tag: string,
    summary: string,
    row: T,
    read: (tx: Tx, pageIds: readonly string[]) => Promise<z.infer<T>[]>,
  ) =>
    app.get(
      path,
      {
        config: { permissions: [permission] },
        schema: {
          // `/payment-methods` → `listPaymentMethods`: stable, as the path is.
          operationId: `list${path.replace(/(?:^|[/-])(\w)/g, (_, letter: string) => letter.toUpperCase())}`,
          tags: [tag],
          summary,
          response: { 200: wholeList(row), ...problemResponses(READ_PROBLEMS) },
        },
      },
      async (request) => ({ data: await request.inShop((tx) => read(tx, request.auth.pageIds)) }),
    );

  list('/staff', 'pos.orders.create', 'Staff and roles', 'Working members of the shop (id and name)', StaffMember, listStaff);
  list('/roles', 'pos.orders.create', 'Staff and roles', "The shop's roles (id and name)", Role, listRoles);
  list('/categories', 'pos.products.read', 'Reference lists', 'Product categories', Category, listCategories);
  list('/warehouses', 'pos.products.read', 'Reference lists', 'Warehouses (deleted ones left out)', Warehouse, listWarehouses);
  list('/tags', 'pos.orders.read', 'Reference lists', 'Order tags', Tag, listTags);
  list('/payment-methods', 'pos.orders.read', 'Reference lists', 'Payment methods', PaymentMethod, listPaymentMethods);
  list('/sales-channels', 'pos.orders.read', 'Reference lists', 'Sales channels', SalesChannel, listSalesChannels);
  list(
    '/carrier-connections',
    'pos.shipping.read',
    'Reference lists',
    "The shop's carrier connections",
    carrierConnectionSchema,
    listCarrierConnections,
  );
  list(
    '/pages',
    'social.pages.read',
    'Reference lists',
    "Chat pages of the key's list (other pages do not exist for it)",
    ChatPage,
    listPages,
  );
};
