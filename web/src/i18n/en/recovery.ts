import type { Messages } from '../messages';
import type { recovery as vi } from '../vi/recovery';

export const recovery: Messages<typeof vi> = {
  title: 'Resend every failed delivery',
  intro:
    "Once the receiver is back, resend in one batch every failed delivery of this flow since the time you choose, with the same webhook-id. The batch is paced so the receiver isn't flooded.",
  since: 'Failed since',
  sinceHint: 'Vietnam time (GMT+7).',
  perMinute: 'Pace (deliveries a minute)',
  perMinuteHint: 'From 1 to {{max}} a minute.',
  start: 'Resend them all',
  started: 'The batch has started.',
  joined: 'A batch since that time is already running: this is its progress (its pace is kept).',
  readOnly: 'Only someone with “{{permission}}” can start a batch.',
  batch: 'Resending the deliveries failed since {{since}}, {{perMinute}} a minute',
  states: {
    running: 'Resending',
    done: 'Done',
    stopped: 'Stopped',
  },
  progress: 'Resend progress',
  counts: {
    found: 'Failed deliveries found',
    resent: 'Resent',
    delivered: 'Delivered',
    stillFailing: 'Still failing',
    skipped: 'Skipped (resent by hand, or gone)',
  },
  temporal: 'See the batch in Temporal',
};
