import type { KeyObject } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ShownDeliveryAttempt,
  createFlow,
  deleteFlow,
  deliveryHistory,
  getFlow,
  listFlows,
  liveSigningSecrets,
  mayReadContent,
  resendRequest,
  retryingDeliveryWorkflow,
  rotateSigningSecret,
  setFlowState,
  shownAttempt,
  signedHeaders,
  testRunRequest,
  updateFlow,
} from '../../../domain/flows/index.js';
import { resendDelivery, retryDeliveryNow, runTestDelivery, type DeliveryStarter } from '../../../workflows/deliveries/delivery-starter.js';
import { IdParams, NoContent, Problem, SHOP_CAPS } from '../../../domain/kernel/index.js';
import { assertDestinationAllowed, DestinationRefused, type OutboundPolicy } from '../../../adapters/outbound/outbound-http.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';
import { pageOf, syncListQuery } from '../../schemas/list-query.js';
import { ConditionVerdict, Flow, FlowInput, FlowState, HistoryQuery, ListedFlow, TestRunBody } from './flow-shapes.js';
import { assertMayManageFlows, assertMayReadFlows } from './flow-access.js';

export interface AdminFlowDeps {
  deliveries: DeliveryStarter;
  namespace: string;
  temporalUiUrl: string;
  /** Seals the signing secrets that creation and rotation show once. */
  secretsKey: KeyObject;
  /** Signs the flows list's cursors. */
  cursorSecret: string;
  /** Where deliveries may go: a flow's address is checked on save and test-run as a delivery checks it. */
  outbound: OutboundPolicy;
}

const tags = ['Admin: flows'];
/** Reading needs automation.flows.view or manage; a change needs manage. */
const listProblems = problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission', 'invalid-cursor');
const readOneProblems = problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission', 'not-found');
/** Every change names a flow or, on creation, pages (references). */
const changeProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found');
/** …and a shop holding its cap of flows already is refused another (409 `limit-reached`). */
const createProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'limit-reached');
/** A step on one delivery of a flow (resend, retry now): which one, and the run it started. */
const DELIVERY_ACTION = {
  params: IdParams.extend({ deliveryId: z.string().regex(/^msg_[0-9A-Z]{26}$/) }),
  response: {
    202: z.object({ deliveryId: z.string(), workflowId: z.string() }),
    ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'conflict'),
  },
};

/** Flows of the admin web app: the Trigger → HTTP-send builder, test-run, history and resend. */
export const adminFlowRoutes: FastifyPluginAsyncZod<AdminFlowDeps> = async (app, deps) => {
  /** The delivery's own check of an address (https, a public IP), refused as a field error before anything is saved or sent. */
  const checkAddress = (url: string | undefined) => {
    if (url === undefined) return;
    try {
      assertDestinationAllowed(url, deps.outbound);
    } catch (error) {
      if (!(error instanceof DestinationRefused)) throw error;
      throw new Problem('validation-failed', `the HTTP-send address is refused: ${error.message}`, {
        errors: [{ path: 'url', message: error.message }],
      });
    }
  };

  app.get(
    '/flows',
    {
      schema: {
        tags,
        summary: 'The flows, oldest first, paged by cursor',
        querystring: syncListQuery.pick({ limit: true, cursor: true }),
        response: { 200: pageOf(ListedFlow), ...listProblems },
      },
    },
    async (request) => {
      assertMayReadFlows(request);
      // A cursor is valid only for this list, this shop and the same limit.
      const binding = { secret: deps.cursorSecret, scope: { list: 'admin-flows', shop: request.admin.shopId, limit: request.query.limit } };
      return request.inShop((tx) => listFlows(tx, request.query, binding));
    },
  );

  app.post(
    '/flows',
    {
      schema: {
        tags,
        summary: `Create a flow (at most ${SHOP_CAPS.flows.limit} a shop)`,
        body: FlowInput,
        response: { 201: z.object({ flow: Flow, secret: z.string().describe('Shown once') }), ...createProblems },
      },
    },
    async (request, reply) => {
      assertMayManageFlows(request);
      checkAddress(request.body.url);
      const created = await request.inShop(async (tx) => {
        const { flowId, secret } = await createFlow(tx, request.admin.shopId, request.body, request.admin.userId, deps.secretsKey);
        return { flow: await getFlow(tx, flowId), secret };
      });
      return reply.status(201).send(created);
    },
  );

  app.get('/flows/:id', { schema: { tags, params: IdParams, response: { 200: Flow, ...readOneProblems } } }, async (request) => {
    assertMayReadFlows(request);
    return request.inShop((tx) => getFlow(tx, request.params.id));
  });

  app.patch(
    '/flows/:id',
    { schema: { tags, params: IdParams, body: FlowInput.omit({ state: true }).partial(), response: { 200: Flow, ...changeProblems } } },
    async (request) => {
      assertMayManageFlows(request);
      checkAddress(request.body.url);
      return request.inShop((tx) => updateFlow(tx, request.params.id, request.body, request.admin.userId));
    },
  );

  app.post(
    '/flows/:id/state',
    { schema: { tags, params: IdParams, body: z.strictObject({ state: FlowState }), response: { 200: Flow, ...changeProblems } } },
    async (request) => {
      assertMayManageFlows(request);
      return request.inShop(async (tx) => {
        await setFlowState(tx, request.params.id, request.body.state, request.admin.userId);
        return getFlow(tx, request.params.id);
      });
    },
  );

  app.delete(
    '/flows/:id',
    { schema: { tags, params: IdParams, response: { 204: NoContent, ...changeProblems } } },
    async (request, reply) => {
      assertMayManageFlows(request);
      await request.inShop((tx) => deleteFlow(tx, request.params.id, request.admin.userId));
      return reply.status(204).send();
    },
  );

  app.post(
    '/flows/:id/secret',
    {
      schema: {
        tags,
        summary: 'Rotate the signing secret (the old one signs for 24 h more)',
        params: IdParams,
        response: { 200: z.object({ secret: z.string() }), ...changeProblems },
      },
    },
    async (request) => {
      assertMayManageFlows(request);
      return { secret: await request.inShop((tx) => rotateSigningSecret(tx, request.params.id, request.admin.userId, deps.secretsKey)) };
    },
  );

  app.post(
    '/flows/:id/test-run',
    {
      schema: {
        tags,
        summary: "Send a test event of the trigger's type through the delivery workflow",
        description:
          "The envelope is marked `\"test\": true`. Its `data` is the made-up example of the event type, or the record `recordId` names (which needs the type's read permissions, for the person and the flow's account). The other fields are the builder's unsaved edits: the test-run uses them instead of the saved flow's (the address checked as on save), and saves nothing.",
        params: IdParams,
        body: TestRunBody.nullish(),
        response: {
          200: z.object({
            eventId: z.string(),
            workflowId: z.string(),
            status: z.string(),
            attempt: ShownDeliveryAttempt,
            request: z
              .object({
                method: z.literal('POST'),
                url: z.string(),
                headers: z.record(z.string(), z.string()),
                body: z.string().nullable().describe("Only for a person who may read the event's data type (as in the history)"),
              })
              .describe('The signed request that was sent'),
            condition: ConditionVerdict,
          }),
          ...changeProblems,
        },
      },
    },
    async (request) => {
      assertMayManageFlows(request);
      const { permissions } = request.admin;
      const { recordId, ...draft } = request.body ?? {};
      checkAddress(draft.url);
      const { request: testRun, condition } = await request.inShop((tx) =>
        testRunRequest(tx, request.admin.shopId, request.params.id, permissions, recordId, draft),
      );
      const { workflowId, result } = await runTestDelivery(deps.deliveries, testRun);
      const attempt = result.attempts[0]!;
      const secrets = await request.inShop((tx) => liveSigningSecrets(tx, request.params.id, deps.secretsKey));
      const headers = signedHeaders(secrets, testRun.deliveryId, new Date(attempt.attemptedAt), testRun.payload);
      // The content and the answer are shown as the delivery history shows them.
      const mayRead = mayReadContent(testRun.eventType, permissions);
      const sent = {
        method: 'POST' as const,
        url: testRun.url,
        headers: { ...headers, 'content-type': 'application/json' },
        body: mayRead ? testRun.payload : null,
      };
      return {
        eventId: testRun.eventId,
        workflowId,
        status: result.status,
        attempt: shownAttempt(attempt, mayRead),
        request: sent,
        condition,
      };
    },
  );

  app.get(
    '/flows/:id/deliveries',
    {
      schema: {
        tags,
        summary: 'Runs of the flow, newest first, paged, with every attempt and a link to the Temporal Web UI',
        params: IdParams,
        querystring: HistoryQuery,
        response: {
          200: z.object({
            data: z.array(
              z.object({
                deliveryId: z.string(),
                eventId: z.string(),
                eventType: z.string(),
                status: z.string(),
                testRun: z.boolean(),
                createdAt: z.string(),
                updatedAt: z.string(),
                about: z
                  .string()
                  .nullable()
                  .describe(
                    "What it was about: an order's code and buyer, a product's or customer's name…; null for a viewer who may not read the data",
                  ),
                nextAttemptAt: z.string().nullable().describe('While retrying: when the next attempt is'),
                attemptsLeft: z.number().int().nullable().describe('While retrying: how many attempts are left, the next one included'),
                temporalUrl: z.string(),
                attempts: z.array(ShownDeliveryAttempt),
                data: z.unknown().optional().describe("Only for a viewer who may read the event's data type"),
              }),
            ),
            nextOffset: z.number().int().nullable().describe('The offset of the next page; null on the last'),
          }),
          ...readOneProblems,
        },
      },
    },
    async (request) => {
      assertMayReadFlows(request);
      const { limit, ...filter } = request.query;
      const rows = await request.inShop(async (tx) => {
        await getFlow(tx, request.params.id);
        // One more than the page tells whether a next page exists.
        const options = { ...filter, limit: limit + 1 };
        return deliveryHistory(tx, request.params.id, request.admin.permissions, deps.temporalUiUrl, deps.namespace, options);
      });
      return { data: rows.slice(0, limit), nextOffset: rows.length > limit ? filter.offset + limit : null };
    },
  );

  app.post(
    '/flows/:id/deliveries/:deliveryId/resend',
    {
      schema: {
        tags,
        summary: 'Resend a failed delivery: same webhook-id, new attempts',
        ...DELIVERY_ACTION,
      },
    },
    async (request, reply) => {
      assertMayManageFlows(request);
      const input = await request.inShop((tx) => resendRequest(tx, request.params.id, request.params.deliveryId));
      const workflowId = await resendDelivery(deps.deliveries, input);
      return reply.status(202).send({ deliveryId: input.deliveryId, workflowId });
    },
  );

  app.post(
    '/flows/:id/deliveries/:deliveryId/retry',
    {
      schema: {
        tags,
        summary: 'Retry a retrying delivery now: its wait ends, and its next attempt is made at once',
        ...DELIVERY_ACTION,
      },
    },
    async (request, reply) => {
      assertMayManageFlows(request);
      const { id, deliveryId } = request.params;
      const workflowId = await request.inShop((tx) => retryingDeliveryWorkflow(tx, id, deliveryId));
      await retryDeliveryNow(deps.deliveries, workflowId);
      return reply.status(202).send({ deliveryId, workflowId });
    },
  );
};
