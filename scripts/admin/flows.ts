import { loadSettings } from '../../config/settings.js';
import { createFlow, resendRequest, setFlowState, shopOfFlow, testRunRequest } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import type * as deliveryStarters from '../../workflows/deliveries/delivery-starter.js';
import type { DeliveryStarter } from '../../workflows/deliveries/delivery-starter.js';
import { fail, list, oneOf, required, shopFlag, type Command, type Env } from './flags.js';

/** Automation flows, their test-runs and resends of failed deliveries (flows). */
export const flowCommands: Record<string, Command> = {
  'flow:create': {
    usage: '--shop S --event T[,T2…] --url U [--name N] [--page P] [--permissions p1,p2] [--on]',
    run: async (sql, f, env) => {
      const shop = await shopFlag(sql, f);
      const events = required(f, 'event');
      return withShop(sql, shop.id, (tx) =>
        createFlow(
          tx,
          shop.id,
          {
            name: f.name ?? `${events} → ${required(f, 'url')}`,
            eventTypes: list(events),
            url: required(f, 'url'),
            pageId: f.page,
            permissions: f.permissions === undefined ? undefined : list(f.permissions),
            state: f.on === undefined ? 'draft' : 'on',
          },
          null,
          loadSettings(env).secretsKey,
        ),
      );
    },
  },
  'flow:set': {
    usage: '--flow ID --state on|off|draft',
    run: async (sql, f) => {
      const flowId = required(f, 'flow');
      const state = oneOf(f, 'state', ['on', 'off', 'draft'] as const) ?? fail('--state is required');
      const shopId = await shopOfFlow(sql, flowId);
      await withShop(sql, shopId, (tx) => setFlowState(tx, flowId, state, null));
      return { flowId, state };
    },
  },
  'flow:test': {
    usage: '--flow ID [--record ID]',
    run: async (sql, f, env) => {
      const flowId = required(f, 'flow');
      const shopId = await shopOfFlow(sql, flowId);
      const { request: testRun } = await withShop(sql, shopId, (tx) => testRunRequest(tx, shopId, flowId, 'operator', f.record));
      return withTemporal(env, async (deliveries, { runTestDelivery }) => {
        const { workflowId, result } = await runTestDelivery(deliveries, testRun);
        return { workflowId, status: result.status, ...result.attempts[0] };
      });
    },
  },
  'delivery:resend': {
    usage: '--flow ID --delivery MSG',
    run: async (sql, f, env) => {
      const flowId = required(f, 'flow');
      const shopId = await shopOfFlow(sql, flowId);
      const resend = await withShop(sql, shopId, (tx) => resendRequest(tx, flowId, required(f, 'delivery')));
      const workflowId = await withTemporal(env, (deliveries, { resendDelivery }) => resendDelivery(deliveries, resend));
      return { deliveryId: resend.deliveryId, workflowId };
    },
  },
};

type Starters = typeof deliveryStarters;

/**
 * The deliveries of the running stack: the connection and the starter of the worker and the API
 * (`temporalConnectionOptions`, `deliveryStarter`), on a task queue a worker polls. Imported here,
 * not at the top: the Temporal client is most of the CLI's start, and only these commands need it.
 */
async function withTemporal<T>(env: Env, work: (deliveries: DeliveryStarter, starters: Starters) => Promise<T>): Promise<T> {
  const [{ Connection }, { temporalConnectionOptions }, starters, { runningLocalTemporal }] = await Promise.all([
    import('@temporalio/client'),
    import('../../config/temporal-connection.js'),
    import('../../workflows/deliveries/delivery-starter.js'),
    import('../bootstrap/temporal.js'),
  ]);
  const settings = loadSettings(env);
  // Only a server that is already up: a worker must poll it, so starting one here could not help.
  const address =
    env.TEMPORAL_ADDRESS ??
    (await runningLocalTemporal())?.address ??
    fail('Temporal is not running: start the stack with npm run dev first');
  const connection = await Connection.connect(temporalConnectionOptions({ ...settings, TEMPORAL_ADDRESS: address }));
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: settings.TEMPORAL_NAMESPACE,
      taskQueue: { name: settings.TEMPORAL_TASK_QUEUE },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    if (!pollers?.length)
      fail(`no worker polls task queue ${settings.TEMPORAL_TASK_QUEUE} on ${address}: start the stack with npm run dev first`);
    return await work(starters.deliveryStarter(connection, settings), starters);
  } finally {
    await connection.close();
  }
}
