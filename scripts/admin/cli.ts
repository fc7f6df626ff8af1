import { parseArgs } from 'node:util';
import { createSql } from '../../db/client.js';
import { Problem } from '../../domain/kernel/index.js';
import { accessCommands } from './access.js';
import { catalogCommands } from './catalog.js';
import { chatCommands } from './chat.js';
import { customerCommands } from './customers.js';
import { eventCommands } from './events.js';
import { optionsOf, UsageError, type Command, type Env, type Flags } from './flags.js';
import { flowCommands } from './flows.js';
import { orderCommands } from './orders.js';
import { shipmentCommands } from './shipments.js';
import { shopCommands } from './shops.js';

/**
 * The admin CLI: `npm run -s admin -- <command> [--flags]` (scripts/admin/main.ts). Prints exactly one
 * JSON object on stdout; messages go to stderr; bad input exits with status 2, a refused operation with
 * 1. Each command is a thin call into one module's `index.ts` (one file of commands per module here).
 */
const COMMANDS: Record<string, Command> = {
  ...shopCommands,
  ...accessCommands,
  ...flowCommands,
  ...eventCommands,
  ...orderCommands,
  ...shipmentCommands,
  ...chatCommands,
  ...customerCommands,
  ...catalogCommands,
};

function usage(): string {
  return [
    'usage: npm run -s admin -- <command> [flags]',
    '',
    ...Object.entries(COMMANDS).map(([name, command]) => `  ${name} ${command.usage}`),
  ].join('\n');
}

/** Where the CLI reads its settings and writes its answer: the process's, or a test's. */
export interface AdminIo {
  env: Env;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** Runs one command line (the arguments after `admin --`); answers the exit status. */
export async function runAdmin(args: string[], io: AdminIo): Promise<number> {
  const [name, ...rest] = args;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    io.err(`${name ? `unknown command ${name}\n\n` : ''}${usage()}\n`);
    return 2;
  }
  let flags: Flags;
  try {
    // The flags a command takes are the ones its usage line names.
    flags = parseArgs({ args: rest, options: optionsOf(command.usage), strict: true, allowPositionals: false }).values as Flags;
  } catch (error) {
    io.err(`${(error as Error).message}\nusage: ${name} ${command.usage}\n`);
    return 2;
  }
  // Without APP_DATABASE_URL the CLI works on the project-local development database of `npm run dev`,
  // whose stack runs with development settings; anywhere else the settings' production rules apply.
  const env = io.env.APP_DATABASE_URL ? io.env : { ...io.env, NODE_ENV: io.env.NODE_ENV ?? 'development' };
  // Imported only here: the bootstrap brings the Temporal client and more, about a second of every start.
  const database = env.APP_DATABASE_URL ? undefined : await (await import('../bootstrap/index.js')).bootstrapDatabase('shopflow');
  const sql = createSql(env.APP_DATABASE_URL ?? database!.appUrl, { max: 2, applicationName: 'shopflow-admin' });
  try {
    const result = await command.run(sql, flags, env);
    io.out(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\nusage: ${name} ${command.usage}\n`);
      return 2;
    }
    if (error instanceof Problem) {
      io.err(`${name}: ${error.detail} (${error.code})\n`);
      return 1;
    }
    throw error;
  } finally {
    await sql.end({ timeout: 2 });
    await database?.stop();
  }
}
