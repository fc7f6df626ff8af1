import { cpus } from 'node:os';

/**
 * A reader of the machine's load for the relay's pace (workflows/deliveries/shop-pace.ts): each call
 * answers the share of every core's time that was busy since the call before (the first, since the
 * reader was made), 0 to 1. It reads the machine the relay runs on, whatever else runs there: on one
 * host with the engine and the database, the load they share.
 */
export function machineBusyReader(): () => number {
  let last = cpuTimes();
  return () => {
    const now = cpuTimes();
    const [total, idle] = [now.total - last.total, now.idle - last.idle];
    last = now;
    return total > 0 ? Math.min(1, Math.max(0, 1 - idle / total)) : 0;
  };
}

function cpuTimes(): { total: number; idle: number } {
  let total = 0;
  let idle = 0;
  for (const { times } of cpus()) {
    total += times.user + times.nice + times.sys + times.idle + times.irq;
    idle += times.idle;
  }
  return { total, idle };
}
