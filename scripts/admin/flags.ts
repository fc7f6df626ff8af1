import type { Sql } from '../../db/client.js';
import { findMemberByEmail, findShop, type Actor } from '../../domain/access/index.js';
import { isUuid, withShop } from '../../domain/kernel/index.js';

/** The flags of one command, as `node:util` `parseArgs` read them (a boolean flag reads as `true`). */
export type Flags = Record<string, string | undefined>;

/** The settings a command reads: the process's environment, or what a test hands the CLI. */
export type Env = NodeJS.ProcessEnv;

/** One admin command: its flags (the usage line names them all) and what it does, answering one JSON object. */
export interface Command {
  usage: string;
  run: (sql: Sql, flags: Flags, env: Env) => Promise<object>;
}

/** Bad input: the CLI prints the message with the command's usage and exits with status 2. */
export class UsageError extends Error {}

export function fail(message: string): never {
  throw new UsageError(message);
}

/** The `parseArgs` options of a usage line: `--flag VALUE` takes a string, a bare `--flag` is boolean. */
export function optionsOf(usage: string): Record<string, { type: 'string' | 'boolean' }> {
  return Object.fromEntries(
    [...usage.matchAll(/--([a-z-]+)( [A-Z0-9|a-z,-]+)?/g)].map(([, flag, value]) => [
      flag!,
      { type: value ? ('string' as const) : ('boolean' as const) },
    ]),
  );
}

export function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

export function uuidFlag(flags: Flags, name: string): string {
  const value = required(flags, name);
  if (!isUuid(value)) throw new UsageError(`--${name} must be an id (uuid)`);
  return value;
}

export function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export function oneOf<T extends string>(flags: Flags, name: string, allowed: readonly T[]): T | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function booleanFlag(flags: Flags, name: string, [yes, no]: [string, string]): boolean | undefined {
  const value = oneOf(flags, name, [yes, no]);
  return value === undefined ? undefined : value === yes;
}

export function integerFlag(name: string, value: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return number;
}

/** The shop `--shop SLUG` names (`not-found` when there is none). */
export function shopFlag(sql: Sql, flags: Flags): ReturnType<typeof findShop> {
  return findShop(sql, required(flags, 'shop'));
}

/** The member an email names (`--as EMAIL`, `--email E`): null (the operator) without one, bad input when not a member. */
export async function memberFlag(sql: Sql, shopId: string, email: string | undefined): Promise<Actor> {
  if (!email) return null;
  const member = await withShop(sql, shopId, (tx) => findMemberByEmail(tx, email));
  if (!member) throw new UsageError(`${email} is not a member of this shop`);
  return member.id;
}
