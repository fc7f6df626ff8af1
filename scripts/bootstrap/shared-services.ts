import { linkSync, mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataDir } from './paths.js';
import { say } from './progress.js';

export interface Run {
  /** This run started `service`: the last run out stops it. */
  markStarted(service: string): void;
  /**
   * This run no longer uses the services. When no other live run does, stops each service a run
   * marked as started (whichever run it was), once; returns the names it stopped.
   */
  leave(stops: Record<string, () => Promise<unknown>>): Promise<string[]>;
}

/**
 * PostgreSQL and Temporal are shared by the runs of one clone that overlap (`npm run dev` beside
 * `npm test`, two dev runs, the admin CLI). Each run holds a lease, a file named by its pid, in
 * `.data/runs/` (named by its pid) from before it looks for the services until it ends; a run that starts a service
 * marks it. The last run out stops the marked services; a service no run started (already running,
 * or `DATABASE_URL`/`TEMPORAL_ADDRESS`) is never stopped. A lease whose process is gone (killed) no
 * longer counts. `npm run stop` still stops everything, leases or not.
 */
let joined = 0;

export function joinRun(dir = join(dataDir, 'runs'), pid = process.pid): Run {
  mkdirSync(dir, { recursive: true });
  // One process may hold several leases (the bench: the database, then Temporal per scenario).
  joined += 1;
  const lease = join(dir, `run-${pid}-${joined}`);
  writeFileSync(lease, '');
  return {
    markStarted: (service) => writeFileSync(join(dir, `started-${service}`), String(pid)),
    async leave(stops) {
      rmSync(lease, { force: true });
      // Runs of other processes: this process's other leases are for other services (the bench holds
      // the database's while it leaves Temporal's, which it would otherwise leave running).
      const others = readdirSync(dir).filter(
        (name) => name.startsWith('run-') && !name.startsWith(`run-${pid}-`) && isLiveLease(join(dir, name)),
      );
      if (others.length > 0) return [];
      // Removing the mark is the claim: of two runs leaving at once, one stops each service.
      const claimed = Object.keys(stops).filter((service) => claim(join(dir, `started-${service}`)));
      await Promise.allSettled(claimed.map((service) => stops[service]!()));
      return claimed;
    },
  };
}

function isLiveLease(file: string): boolean {
  const pid = Number(/run-(\d+)-\d+$/.exec(file)?.[1]);
  if (isAlive(pid)) return true;
  rmSync(file, { force: true });
  return false;
}

/** Whether process `pid` still runs (one of another user's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function claim(mark: string): boolean {
  try {
    unlinkSync(mark);
    return true;
  } catch {
    return false;
  }
}

/**
 * `work` while holding `lockFile` (its holder's pid), so that runs of this machine never do it at
 * once; the others wait, saying for what. A lock whose process is gone is taken over.
 */
export async function withLock<T>(lockFile: string, what: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(lockFile), { recursive: true });
  // Made whole, then linked: the lock never exists without its pid in it.
  const mine = `${lockFile}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  let told = false;
  try {
    for (;;) {
      try {
        linkSync(mine, lockFile);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      let holder: number;
      try {
        holder = Number(readFileSync(lockFile, 'utf8'));
      } catch (error) {
        // Released between the link and the read: try again.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      if (!isAlive(holder)) {
        rmSync(lockFile, { force: true });
        continue;
      }
      if (!told) say(`› waiting for ${what} another run (pid ${holder}) has under way…`);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    rmSync(mine, { force: true });
  }
  try {
    return await work();
  } finally {
    rmSync(lockFile, { force: true });
  }
}
