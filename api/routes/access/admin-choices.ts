import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHAT_PERMISSIONS, GRANTABLE_PERMISSIONS, listShopPages } from '../../../domain/access/index.js';
import { EVENT_READ_PERMISSIONS, EVENT_TYPES, needsPage } from '../../../domain/events/index.js';
import { CONDITION_LIMITS, conditionFieldsOf, operatorsFor } from '../../../domain/flows/index.js';
import { ChatPage } from '../reference-lists.js';
import { ADMIN_READ_PROBLEMS, problemResponses } from '../../schemas/problem.js';

/** `pos.orders.read` → `pos.orders`: the family a permission is grouped under on the screens. */
const familyOf = (permission: string) => permission.split('.').slice(0, 2).join('.');

const PERMISSION_FAMILIES = [...new Set(GRANTABLE_PERMISSIONS.map(familyOf))].map((family) => ({
  family,
  permissions: GRANTABLE_PERMISSIONS.filter((permission) => familyOf(permission) === family),
}));

const Choices = z.object({
  eventTypes: z.array(
    z.object({
      type: z.string(),
      needsPage: z.boolean().describe('A message event belongs to a chat page'),
      readPermissions: z.array(z.string()).describe("What the flow's account needs to receive it"),
      conditionFields: z
        .array(
          z.object({
            path: z.string().describe('`data.<field>…` or `changes.<field>…`'),
            kind: z.enum(['number', 'text', 'boolean', 'time']),
            list: z.boolean().describe('Reached through a list: a rule holds when it holds for any element'),
            operators: z.array(z.string()).describe('The comparisons that apply to it'),
          }),
        )
        .describe("What a Condition block may test in this type's events"),
    }),
  ),
  conditionLimits: z
    .object({ rules: z.number().int(), values: z.number().int(), valueLength: z.number().int() })
    .describe('What a Condition block may hold: rules, values of an in/notIn list, characters of a value'),
  permissionFamilies: z.array(z.object({ family: z.string(), permissions: z.array(z.string()) })),
  chatPermissions: z.array(z.string()).describe('The permissions that need chat pages'),
  pages: z.array(ChatPage).describe('The chat pages the member sees (all of them with social.pages.read)'),
});

/** What the admin web app's pickers offer: the event catalogue, grantable permissions by family, chat pages. */
export const adminChoicesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/choices',
    { schema: { tags: ['Admin: session'], response: { 200: Choices, ...problemResponses(ADMIN_READ_PROBLEMS) } } },
    async (request) => ({
      eventTypes: EVENT_TYPES.map((type) => ({
        type,
        needsPage: needsPage(type),
        readPermissions: [...EVENT_READ_PERMISSIONS[type]],
        conditionFields: conditionFieldsOf(type).map((field) => ({ ...field, operators: [...operatorsFor(field.kind)] })),
      })),
      conditionLimits: CONDITION_LIMITS,
      permissionFamilies: PERMISSION_FAMILIES,
      chatPermissions: [...CHAT_PERMISSIONS],
      pages: request.admin.permissions.includes('social.pages.read') ? await request.inShop(listShopPages) : [],
    }),
  );
};
