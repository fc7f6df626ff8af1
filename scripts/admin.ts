import { parseArgs } from 'node:util';
import { createSql, type Sql } from '../db/client.js';
import {
  addMember,
  createApplication,
  createKey,
  createShop,
  findMemberByEmail,
  findShop,
  revokeKey,
  rotateKey,
  updateApplication,
  updateMember,
  updateShopSettings,
  type Actor,
  type MemberStatus,
} from '../domain/access/index.js';
import { isUuid, Problem, withShop } from '../domain/kernel/index.js';
import { createFlow, resendRequest, setFlowState, shopOf, testRunRequest } from '../domain/flows/index.js';
import { bootstrapDatabase } from './bootstrap/index.js';
import { runningLocalTemporal } from './bootstrap/temporal.js';
import { Client, Connection } from '@temporalio/client';
import { loadSettings } from '../config/settings.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import { changeShopStatusMatrix, isOrderStatus, ORDER_STATUSES, recordReturn, reviewReturn, type Transition } from '../domain/orders/index.js';
import { resendDelivery, runTestDelivery, type DeliveryStarter } from '../workers/delivery-starts.js';

/**
 * The admin CLI: `npm run -s admin -- <command> [--flags]`. Prints exactly one JSON object on
 * stdout; messages go to stderr; bad input exits with status 2, a refused operation with 1.
 */
type Flags = Record<string, string | undefined>;
type Command = { usage: string; run: (sql: Sql, flags: Flags) => Promise<object> };

class UsageError extends Error {}

const COMMANDS: Record<string, Command> = {
  'shop:create': {
    usage: '--slug S --name N',
    run: (sql, f) => createShop(sql, { slug: required(f, 'slug'), name: required(f, 'name') }),
  },
  'shop:set': {
    usage: '--shop S [--plan active|expired] [--suspended true|false] [--automation on|off] [--recompute-ceiling-minutes 0-10] [--lock-prices true|false]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const ceiling = f['recompute-ceiling-minutes'];
      await updateShopSettings(sql, shop.id, {
        plan: oneOf(f, 'plan', ['active', 'expired'] as const),
        suspended: booleanFlag(f, 'suspended', ['true', 'false']),
        automationEnabled: booleanFlag(f, 'automation', ['on', 'off']),
        recomputeCeilingSeconds: ceiling === undefined ? undefined : integerFlag('recompute-ceiling-minutes', ceiling, 0, 10) * 60,
        lockPrices: booleanFlag(f, 'lock-prices', ['true', 'false']),
      });
      return { id: shop.id, slug: shop.slug, updated: true };
    },
  },
  'shop:order-statuses': {
    usage: '--shop S [--remove FROM:TO,FROM:TO] [--restore FROM:TO,FROM:TO] [--as EMAIL]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const actor = await actorId(sql, shop.id, f.as);
      const matrix = await withShop(sql, shop.id, (tx) =>
        changeShopStatusMatrix(tx, shop.id, { remove: transitionsFlag(f, 'remove'), restore: transitionsFlag(f, 'restore') }, actor),
      );
      return { shopId: shop.id, matrix };
    },
  },
  'user:create': {
    usage: '--shop S --email E --name N [--role R] [--password P]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      return addMember(sql, shop.id, { email: required(f, 'email'), name: required(f, 'name'), role: f.role, password: f.password });
    },
  },
  'user:set': {
    usage: '--shop S --email E [--status working|disabled|left] [--locked true|false] [--password P]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const userId = await actorId(sql, shop.id, required(f, 'email'));
      await updateMember(sql, shop.id, userId!, {
        status: oneOf(f, 'status', ['working', 'disabled', 'left'] as const satisfies readonly MemberStatus[]),
        locked: booleanFlag(f, 'locked', ['true', 'false']),
        password: f.password,
      });
      return { id: userId, updated: true };
    },
  },
  'app:create': {
    usage: '--shop S --name N --permissions p1,p2 [--pages all|id1,id2] [--as EMAIL]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const actor = await actorId(sql, shop.id, f.as);
      const created = await withShop(sql, shop.id, (tx) =>
        createApplication(tx, shop.id, { name: required(f, 'name'), permissions: list(required(f, 'permissions')), pages: pagesFlag(f) }, actor),
      );
      return { applicationId: created.applicationId, keyId: created.keyId, key: created.key };
    },
  },
  'app:update': {
    usage: '--app ID [--name N] [--permissions p1,p2] [--pages all|id1,id2] [--as EMAIL]',
    run: async (sql, f) => {
      const applicationId = required(f, 'app');
      const shopId = await shopOf(sql, 'application', applicationId);
      const actor = await actorId(sql, shopId, f.as);
      await withShop(sql, shopId, (tx) =>
        updateApplication(tx, applicationId, { name: f.name, permissions: f.permissions === undefined ? undefined : list(f.permissions), pages: pagesFlag(f) }, actor),
      );
      return { applicationId, updated: true };
    },
  },
  'key:create': {
    usage: '--app ID [--as EMAIL]',
    run: async (sql, f) => {
      const applicationId = required(f, 'app');
      const shopId = await shopOf(sql, 'application', applicationId);
      const actor = await actorId(sql, shopId, f.as);
      return withShop(sql, shopId, (tx) => createKey(tx, applicationId, actor));
    },
  },
  'key:rotate': {
    usage: '--app ID [--overlap-hours 0-72] [--as EMAIL]',
    run: async (sql, f) => {
      const applicationId = required(f, 'app');
      const shopId = await shopOf(sql, 'application', applicationId);
      const actor = await actorId(sql, shopId, f.as);
      const overlap = f['overlap-hours'] === undefined ? undefined : integerFlag('overlap-hours', f['overlap-hours'], 0, 72);
      return withShop(sql, shopId, (tx) => rotateKey(tx, applicationId, actor, overlap));
    },
  },
  'key:revoke': {
    usage: '--key ID [--as EMAIL]',
    run: async (sql, f) => {
      const keyId = required(f, 'key');
      const shopId = await shopOf(sql, 'api_key', keyId);
      const actor = await actorId(sql, shopId, f.as);
      return withShop(sql, shopId, (tx) => revokeKey(tx, keyId, actor));
    },
  },
  'flow:create': {
    usage: '--shop S --event T --url U [--name N] [--page P] [--permissions p1,p2] [--on]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const eventType = required(f, 'event');
      return withShop(sql, shop.id, (tx) =>
        createFlow(
          tx,
          shop.id,
          {
            name: f.name ?? `${eventType} → ${required(f, 'url')}`,
            eventType,
            url: required(f, 'url'),
            pageId: f.page,
            permissions: f.permissions === undefined ? undefined : list(f.permissions),
            state: f.on === undefined ? 'draft' : 'on',
          },
          null,
          loadSettings().secretsKey,
        ),
      );
    },
  },
  'flow:set': {
    usage: '--flow ID --state on|off|draft',
    run: async (sql, f) => {
      const flowId = required(f, 'flow');
      const state = oneOf(f, 'state', ['on', 'off', 'draft'] as const) ?? fail('--state is required');
      const shopId = await shopOf(sql, 'flow', flowId);
      await withShop(sql, shopId, (tx) => setFlowState(tx, flowId, state, null));
      return { flowId, state };
    },
  },
  'flow:test': {
    usage: '--flow ID',
    run: async (sql, f) => {
      const flowId = required(f, 'flow');
      const shopId = await shopOf(sql, 'flow', flowId);
      const testRun = await withShop(sql, shopId, (tx) => testRunRequest(tx, shopId, flowId));
      return withTemporal(async (deliveries) => {
        const { workflowId, result } = await runTestDelivery(deliveries, testRun);
        return { workflowId, status: result.status, ...result.attempts[0] };
      });
    },
  },
  'delivery:resend': {
    usage: '--flow ID --delivery MSG',
    run: async (sql, f) => {
      const flowId = required(f, 'flow');
      const shopId = await shopOf(sql, 'flow', flowId);
      const resend = await withShop(sql, shopId, (tx) => resendRequest(tx, shopId, flowId, required(f, 'delivery')));
      const workflowId = await withTemporal((deliveries) => resendDelivery(deliveries, resend));
      return { deliveryId: resend.deliveryId, workflowId };
    },
  },
  'order:return': {
    usage: '--shop S --order ID --lines LINE:QTY,LINE:QTY [--exchange] [--credit-order ID]',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const orderId = uuidFlag(f, 'order');
      const lines = list(required(f, 'lines')).map((pair) => {
        const [lineId, quantity, extra] = pair.split(':');
        if (extra !== undefined || !isUuid(lineId) || !QUANTITY.test(quantity ?? '')) {
          throw new UsageError(`--lines: ${pair} is not LINE:QTY (a line id, a quantity with at most three decimals)`);
        }
        return { lineId: lineId!, quantity: quantity! };
      });
      const creditOrderId = f['credit-order'] === undefined ? undefined : uuidFlag(f, 'credit-order');
      const { returnId, order } = await withShop(sql, shop.id, (tx) => recordReturn(tx, shop.id, orderId, { lines, exchange: f.exchange !== undefined, creditOrderId }));
      return { returnId, orderId, returnedAmount: order.returnedAmount, exchangeReturn: order.exchangeReturn };
    },
  },
  'order:return-review': {
    usage: '--shop S --return ID --exchange true|false',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const returnId = uuidFlag(f, 'return');
      const exchange = booleanFlag(f, 'exchange', ['true', 'false']) ?? fail('--exchange is required');
      const order = await withShop(sql, shop.id, (tx) => reviewReturn(tx, shop.id, returnId, exchange));
      return { returnId, orderId: order.id, exchangeReturn: order.exchangeReturn };
    },
  },
  'page:create': {
    usage: '--shop S --name N',
    run: async (sql, f) => {
      const shop = await findShop(sql, required(f, 'shop'));
      const [page] = await withShop(sql, shop.id, (tx) => tx<{ id: string; name: string }[]>`insert into pages (shop_id, name) values (${shop.id}, ${required(f, 'name')}) returning id, name`);
      return page!;
    },
  },
};

async function actorId(sql: Sql, shopId: string, email: string | undefined): Promise<Actor> {
  if (!email) return null;
  const member = await withShop(sql, shopId, (tx) => findMemberByEmail(tx, email));
  if (!member) throw new UsageError(`${email} is not a member of this shop`);
  return member.id;
}

function fail(message: string): never {
  throw new UsageError(message);
}

/** A Temporal client on which a worker polls (the one of `npm run dev`), for commands that run workflows. */
async function withTemporal<T>(work: (deliveries: DeliveryStarter) => Promise<T>): Promise<T> {
  const settings = loadSettings();
  // Only a server that is already up: a worker must poll it, so starting one here could not help.
  const address = process.env.TEMPORAL_ADDRESS ?? (await runningLocalTemporal())?.address ?? fail('Temporal is not running: start the stack with npm run dev first');
  const connection = await Connection.connect(temporalConnectionOptions({ ...settings, TEMPORAL_ADDRESS: address }));
  try {
    const { pollers } = await connection.workflowService.describeTaskQueue({
      namespace: settings.TEMPORAL_NAMESPACE,
      taskQueue: { name: settings.TEMPORAL_TASK_QUEUE },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    if (!pollers?.length) fail(`no worker polls task queue ${settings.TEMPORAL_TASK_QUEUE} on ${address}: start the stack with npm run dev first`);
    return await work({ client: new Client({ connection, namespace: settings.TEMPORAL_NAMESPACE }), taskQueue: settings.TEMPORAL_TASK_QUEUE, requestKey: settings.DELIVERY_REQUEST_KEY });
  } finally {
    await connection.close();
  }
}

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

const QUANTITY = /^\d{1,12}(\.\d{1,3})?$/;

function uuidFlag(flags: Flags, name: string): string {
  const value = required(flags, name);
  if (!isUuid(value)) throw new UsageError(`--${name} must be an id (uuid)`);
  return value;
}

function list(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter(Boolean);
}

/** `from:to` pairs of order statuses, comma-separated. */
function transitionsFlag(flags: Flags, name: string): Transition[] {
  return list(flags[name] ?? '').map((pair) => {
    const [from, to, extra] = pair.split(':');
    if (extra !== undefined || !isOrderStatus(from) || !isOrderStatus(to)) {
      throw new UsageError(`--${name}: ${pair} is not FROM:TO with order statuses (${ORDER_STATUSES.join(', ')})`);
    }
    return [from, to] as const;
  });
}

function pagesFlag(flags: Flags): 'all' | string[] | undefined {
  if (flags.pages === undefined) return undefined;
  return flags.pages === 'all' ? 'all' : list(flags.pages);
}

function oneOf<T extends string>(flags: Flags, name: string, allowed: readonly T[]): T | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function booleanFlag(flags: Flags, name: string, [yes, no]: [string, string]): boolean | undefined {
  const value = oneOf(flags, name, [yes, no]);
  return value === undefined ? undefined : value === yes;
}

function integerFlag(name: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return number;
}

function usage(): string {
  return ['usage: npm run -s admin -- <command> [flags]', '', ...Object.entries(COMMANDS).map(([name, command]) => `  ${name} ${command.usage}`)].join('\n');
}

async function main(): Promise<number> {
  const [name, ...rest] = process.argv.slice(2);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `unknown command ${name}\n\n` : ''}${usage()}\n`);
    return 2;
  }
  let flags: Flags;
  try {
    // The flags a command takes are the ones its usage line names.
    const options = Object.fromEntries(
      [...command.usage.matchAll(/--([a-z-]+)( [A-Z0-9|a-z,-]+)?/g)].map(([, flag, value]) => [flag!, { type: value ? ('string' as const) : ('boolean' as const) }]),
    );
    flags = parseArgs({ args: rest, options, strict: true, allowPositionals: false }).values as Flags;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\nusage: ${name} ${command.usage}\n`);
    return 2;
  }
  // Without APP_DATABASE_URL the CLI works on the project-local development database of `npm run dev`,
  // whose stack runs with development settings; anywhere else the settings' production rules apply.
  if (!process.env.APP_DATABASE_URL) process.env.NODE_ENV ??= 'development';
  const database = process.env.APP_DATABASE_URL ? undefined : await bootstrapDatabase('shopflow');
  const sql = createSql(process.env.APP_DATABASE_URL ?? database!.appUrl, { max: 2, applicationName: 'shopflow-admin' });
  try {
    const result = await command.run(sql, flags);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\nusage: ${name} ${command.usage}\n`);
      return 2;
    }
    if (error instanceof Problem) {
      process.stderr.write(`${name}: ${error.detail} (${error.code})\n`);
      return 1;
    }
    throw error;
  } finally {
    await sql.end({ timeout: 2 });
    await database?.stop();
  }
}

process.exitCode = await main();
