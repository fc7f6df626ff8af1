import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { shopIdentity } from '../../../domain/access/index.js';
import {
  checkRecoverySince,
  countFailedDeliveries,
  getFlow,
  latestRecovery,
  logRecoveryStarted,
  RECOVERY_PACE,
} from '../../../domain/flows/index.js';
import { IdParams, Problem, TimestampInput } from '../../../domain/kernel/index.js';
import { DEFAULT_RETENTION, type Retention } from '../../../config/settings.js';
import type { DeliveryStarter } from '../../../workflows/deliveries/delivery-starter.js';
import {
  recoveryState,
  recoveryWorkflowId,
  startRecoveryInShare,
  type RecoveryState,
} from '../../../workflows/deliveries/recovery-starter.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';
import { assertMayManageFlows, assertMayReadFlows } from './flow-access.js';

export interface FlowRecoveryDeps {
  deliveries: DeliveryStarter;
  namespace: string;
  temporalUiUrl: string;
  /** What is kept of deliveries and events (settings `DELIVERY_RETENTION_DAYS`, `EVENT_RETENTION_DAYS`); their defaults without it. */
  retention?: Retention;
}

const Recovery = z
  .object({
    workflowId: z
      .string()
      .describe('`delivery-recovery:<flowId>:<since>`: the parent workflow in the Temporal UI, whose children are the resends'),
    temporalUrl: z.string(),
    state: z.enum(['running', 'done', 'stopped']).describe('`stopped`: ended otherwise than by resending all (terminated by an operator)'),
    since: z.string(),
    until: z.string().describe('When the batch started: it resends the deliveries that had failed by then'),
    perMinute: z.number().int(),
    found: z.number().int().describe('Failed deliveries the batch found'),
    resent: z.number().int().describe('Resends started'),
    skipped: z
      .number()
      .int()
      .describe('Found but not resent by the batch: resent by hand meanwhile, delivered since, or their event purged'),
    delivered: z.number().int().describe('Resends delivered'),
    stillFailing: z.number().int().describe('Resends whose attempt failed again (retrying on their schedule, or failed)'),
  })
  .meta({ id: 'AdminDeliveryRecovery' });

const RecoveryBody = z.strictObject({
  since: TimestampInput.describe('Resend the failed deliveries created since then: not in the future, within the retention'),
  perMinute: z
    .number()
    .int()
    .min(1)
    .max(RECOVERY_PACE.maxPerMinute)
    .default(RECOVERY_PACE.defaultPerMinute)
    .describe(`Resends a minute: the receiver is not flooded (at most ${RECOVERY_PACE.maxPerMinute})`),
});

const tags = ['Admin: flows'];

/**
 * Recovery in one step: every failed delivery of a flow since a time, resent as one batch (one parent
 * workflow whose children are the resends), paced, and its progress.
 */
export const flowRecoveryRoutes: FastifyPluginAsyncZod<FlowRecoveryDeps> = async (app, deps) => {
  const { deliveryDays, eventDays } = deps.retention ?? DEFAULT_RETENTION;
  // A resend sends the stored event: the window is what is kept of both.
  const retentionDays = Math.min(deliveryDays, eventDays);
  const shown = ({ done: _done, ...state }: RecoveryState) => ({
    ...state,
    temporalUrl: `${deps.temporalUiUrl}/namespaces/${encodeURIComponent(deps.namespace)}/workflows/${encodeURIComponent(state.workflowId)}`,
  });

  app.post(
    '/flows/:id/recovery',
    {
      schema: {
        tags,
        summary: 'Resend every failed delivery of the flow since a time, as one paced batch',
        description:
          "Each resend is what a single resend does (the same `webhook-id`, new attempts). A batch is one per flow and `since`: starting it again while it runs joins it (`joined`, its own pace kept); a delivery resent by hand meanwhile is not sent twice. One batch runs per flow at a time (another `since` meanwhile: 409 `conflict` with the running batch's `workflowId`), at most 3 per shop, their paces together at most 600 a minute, and only for a flow that is on (409 otherwise). Needs automation.flows.manage, as a resend.",
        params: IdParams,
        body: RecoveryBody,
        response: {
          202: Recovery.extend({ joined: z.boolean().describe('true: the batch was already running, and this is its progress') }),
          ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'conflict'),
        },
      },
    },
    async (request, reply) => {
      assertMayManageFlows(request, 'resending deliveries');
      const { perMinute } = request.body;
      const now = new Date();
      checkRecoverySince(new Date(request.body.since), now, retentionDays);
      const since = new Date(request.body.since).toISOString();
      const { shopId } = request.admin;
      const flowId = request.params.id;
      const { start, workflowId, joined } = await request.inShop(async (tx) => {
        const flow = await getFlow(tx, flowId);
        const shop = await shopIdentity(tx, shopId);
        const window = { flowId, since, until: now.toISOString() };
        const batch = {
          ...window,
          shopId,
          perMinute,
          found: await countFailedDeliveries(tx, window),
          about: { shopSlug: shop.slug, flowName: flow.name },
        };
        return { start: batch, ...(await startRecoveryInShare(tx, deps.deliveries, batch, flow)) };
      });
      if (joined) {
        const running = await recoveryState(deps.deliveries, workflowId);
        if (running) return reply.status(202).send({ ...shown(running), joined });
      }
      await request.inShop((tx) =>
        logRecoveryStarted(tx, { shopId, actor: request.admin.userId, flowId, since, perMinute, found: start.found, workflowId }),
      );
      const fresh = {
        workflowId,
        state: 'running' as const,
        since,
        until: start.until,
        perMinute,
        found: start.found,
        resent: 0,
        skipped: 0,
        done: false,
      };
      return reply.status(202).send({ ...shown({ ...fresh, delivered: 0, stillFailing: 0 }), joined: false });
    },
  );

  app.get(
    '/flows/:id/recovery',
    {
      schema: {
        tags,
        summary: "A batch's progress: found, resent, delivered, still failing",
        description: "The batch of `since`, or without it the flow's latest (a running one first). 404 when there is none.",
        params: IdParams,
        querystring: z.strictObject({ since: TimestampInput.optional() }),
        response: { 200: Recovery, ...problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission', 'not-found') },
      },
    },
    async (request) => {
      assertMayReadFlows(request);
      const flowId = request.params.id;
      const { since } = request.query;
      const workflowId = await request.inShop(async (tx) => {
        await getFlow(tx, flowId);
        return since ? recoveryWorkflowId(flowId, since) : latestRecovery(tx, flowId);
      });
      const state = workflowId && (await recoveryState(deps.deliveries, workflowId));
      if (!state) throw new Problem('not-found', 'no resend of failed deliveries of this flow');
      return shown(state);
    },
  );
};
