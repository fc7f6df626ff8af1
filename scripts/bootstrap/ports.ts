import { createServer, connect } from 'node:net';

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

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** `preferred` when free, otherwise the next free port above it. */
export async function freePort(preferred: number, host = '127.0.0.1'): Promise<number> {
  for (let port = preferred; port < preferred + 200; port += 1) {
    if ((await canListen(port, host)) && !(await isPortOpen(port, host))) return port;
  }
  throw new Error(`no free port in ${preferred}–${preferred + 199}`);
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs / 1000} s`);
}
