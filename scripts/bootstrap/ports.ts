import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { dataDir } from './paths.js';
import { isAlive } from './shared-services.js';

/** True when something accepts TCP connections on host:port. */
export function isPortOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The loopback addresses a local server may take: `localhost` is `::1` first on some systems (Vite's dev server). */
const LOOPBACK = ['127.0.0.1', '::1'];

/** Whether a server could listen on host:port; an address family the machine lacks takes nothing from it. */
function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code !== 'EADDRINUSE' && error.code !== 'EACCES'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function isFree(port: number, host: string): Promise<boolean> {
  for (const address of host === LOOPBACK[0] ? LOOPBACK : [host]) {
    if (!(await canListen(port, address)) || (await isPortOpen(port, address))) return false;
  }
  return true;
}

/** `preferred` when free (nothing listens on it, on either loopback address), otherwise the next free port above it. */
export function freePort(preferred: number, host = '127.0.0.1'): Promise<number> {
  return firstFree(preferred, host, () => true);
}

/** The first free port from `preferred` up that `take` claims. */
async function firstFree(preferred: number, host: string, take: (port: number) => boolean): Promise<number> {
  for (let port = preferred; port < preferred + 200; port += 1) {
    if ((await isFree(port, host)) && take(port)) return port;
  }
  throw new Error(`no free port in ${preferred}–${preferred + 199}`);
}

/**
 * A free port for each server a run will start (`npm run dev`: its API, web app and simulators), no
 * two the same. The servers listen seconds later, in children: until then nothing shows the ports
 * taken, so each is reserved for this process until it exits (a `<port>-<pid>` file in
 * `.data/ports/`), and runs of this clone choosing at once never take the same one. A reservation
 * whose process is gone no longer counts.
 */
export async function freePorts<Name extends string>(preferred: Record<Name, number>): Promise<Record<Name, number>> {
  const chosen = {} as Record<Name, number>;
  for (const name of Object.keys(preferred) as Name[]) {
    const taken = Object.values<number>(chosen);
    chosen[name] = await firstFree(preferred[name], '127.0.0.1', (port) => !taken.includes(port) && reserve(port));
  }
  return chosen;
}

const reservations = join(dataDir, 'ports');
const mine = new Set<string>();
process.once('exit', () => {
  for (const file of mine) rmSync(file, { force: true });
});

/** Claims `port` for this process: false when another live process holds it. */
function reserve(port: number): boolean {
  mkdirSync(reservations, { recursive: true });
  const own = join(reservations, `${port}-${process.pid}`);
  writeFileSync(own, '');
  mine.add(own);
  // Written first, then looked for others: of two processes claiming at once, neither misses the other.
  const others = readdirSync(reservations).filter((name) => {
    const [claimed, pid] = name.split('-').map(Number);
    if (claimed !== port || pid === process.pid) return false;
    if (isAlive(pid!)) return true;
    rmSync(join(reservations, name), { force: true });
    return false;
  });
  if (others.length === 0) return true;
  rmSync(own, { force: true });
  mine.delete(own);
  return false;
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`);
}
