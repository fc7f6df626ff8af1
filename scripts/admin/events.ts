import { requeueSetAsideEvents, setAsideEvents } from '../../domain/events/index.js';
import { fail, list, type Command } from './flags.js';

/** The relay's events set aside (matching them to flows kept failing), and queuing them again (events). */
export const eventCommands: Record<string, Command> = {
  'events:set-aside': {
    usage: '',
    run: async (sql) => ({ events: await setAsideEvents(sql) }),
  },
  'events:requeue': {
    usage: '--event ID[,ID2…] | --all',
    run: async (sql, f) => {
      if ((f.event === undefined) === (f.all === undefined)) fail('name the events (--event) or --all');
      const requeued = await requeueSetAsideEvents(sql, f.event === undefined ? undefined : list(f.event));
      return { requeued };
    },
  },
};
