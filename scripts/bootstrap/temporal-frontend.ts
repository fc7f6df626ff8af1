import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { isPortOpen, waitFor } from './ports.js';
import { isAlive } from './shared-services.js';
import { SEARCH_ATTRIBUTES } from '../../workflows/search-attributes.js';

/** What the bootstrap hands on of a Temporal server, the dev server's or the cluster's (temporal-cluster.ts). */
export interface TemporalService {
  address: string;
  uiUrl: string;
  /** This bootstrap started the server (stopped by the last run out: shared-services.ts). */
  started?: boolean;
  /** The `temporal` CLI (an operator's tool the suite uses too); none with `TEMPORAL_ADDRESS`. */
  cli?: string;
}

const NAMESPACE = 'default';

/** The frontend answers and the default namespace exists. */
export async function isServing(address: string): Promise<boolean> {
  const [host = '127.0.0.1', port = '7233'] = address.split(':');
  if (!(await isPortOpen(Number(port), host))) return false;
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 2_000 });
    await connection.workflowService.describeNamespace({ namespace: process.env.TEMPORAL_NAMESPACE ?? NAMESPACE });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close();
  }
}

/** The frontend answers, namespace or not (a new cluster has none until the bootstrap registers it). */
export async function frontendAnswers(address: string): Promise<boolean> {
  const [host = '127.0.0.1', port = '7233'] = address.split(':');
  if (!(await isPortOpen(Number(port), host))) return false;
  // The connection asks for the server's system information first.
  return Connection.connect({ address, connectTimeout: 2_000 }).then(
    (connection) => connection.close().then(() => true),
    () => false,
  );
}

/** temporal.api.enums.v1.IndexedValueType of each type of ours. */
const INDEXED_VALUE_TYPES = { Keyword: 2, Bool: 5 } as const;

/**
 * Adds the search attributes the namespace lacks (the dev server's own flags add them only to a new
 * database; a cluster starts with none); true when it added any.
 */
export async function registerSearchAttributes(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: NAMESPACE });
    const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in (customAttributes ?? {})));
    if (missing.length === 0) return false;
    await connection.operatorService.addSearchAttributes({
      namespace: NAMESPACE,
      searchAttributes: Object.fromEntries(
        missing.map((name) => [name, INDEXED_VALUE_TYPES[SEARCH_ATTRIBUTES[name as keyof typeof SEARCH_ATTRIBUTES]]]),
      ),
    });
    return true;
  } finally {
    await connection.close();
  }
}

/** Registers the default namespace when the server has none (the dev server makes its own; a cluster does not). */
export async function registerNamespace(address: string, retentionDays: number): Promise<boolean> {
  const connection = await Connection.connect({ address });
  try {
    const known = await connection.workflowService.describeNamespace({ namespace: NAMESPACE }).then(
      () => true,
      () => false,
    );
    if (known) return false;
    await connection.workflowService.registerNamespace({
      namespace: NAMESPACE,
      workflowExecutionRetentionPeriod: msToTs(`${retentionDays} days`),
    });
    return true;
  } finally {
    await connection.close();
  }
}

/** Resolves once the frontend knows the default namespace: it reads namespaces from a cache refreshed every 2 s. */
export async function awaitNamespace(address: string, timeoutMs: number): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await waitFor(
      `namespace ${NAMESPACE}`,
      () =>
        connection.operatorService.listSearchAttributes({ namespace: NAMESPACE }).then(
          () => true,
          () => false,
        ),
      timeoutMs,
    );
  } finally {
    await connection.close();
  }
}

/**
 * Resolves once a visibility query naming every search attribute of ours is accepted: the frontend
 * caches namespaces and their attributes for a few seconds after they are registered.
 */
export async function awaitSearchAttributes(address: string, timeoutMs: number): Promise<void> {
  const query = Object.entries(SEARCH_ATTRIBUTES)
    .map(([name, type]) => (type === 'Bool' ? `${name} = false` : `${name} = ''`))
    .join(' OR ');
  const connection = await Connection.connect({ address });
  try {
    await waitFor(
      `the search attributes in namespace ${NAMESPACE}`,
      () =>
        connection.workflowService.listWorkflowExecutions({ namespace: NAMESPACE, query, pageSize: 1 }).then(
          () => true,
          () => false,
        ),
      timeoutMs,
    );
  } finally {
    await connection.close();
  }
}

/** SIGTERM to the process group of `pid`, SIGKILL when it is still there after 15 s; resolves once it is gone. */
export async function stopProcessGroup(pid: number, what: string): Promise<void> {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  await waitFor(`${what} to stop`, async () => !isAlive(pid), 15_000).catch(() => process.kill(-pid, 'SIGKILL'));
}

/** SIGKILL to the process group of `pid`, as a crash would; resolves once it is gone. */
export async function crashProcessGroup(pid: number, what: string): Promise<void> {
  process.kill(-pid, 'SIGKILL');
  await waitFor(`the killed ${what} to exit`, async () => !isAlive(pid), 15_000);
}
