import type { Messages } from '../messages';
import type { health as vi } from '../vi/health';

export const health: Messages<typeof vi> = {
  title: 'Delivery health',
  range: {
    label: 'Period',
    day: 'Last 24 hours',
    week: 'Last 7 days',
  },
  figures: {
    attempts: 'Sends',
    successRate: 'Success rate',
    p50: 'Median answer time (p50)',
    p99: 'Slowest 1% answer time (p99)',
    lastFailure: 'Latest failure',
  },
  milliseconds: '{{value}} ms',
  noFigure: 'None yet',
  noAttempts: 'Nothing was sent in this period.',
  noFailure: 'No failure in the last 7 days.',
  failureStatus: 'The receiver answered HTTP {{status}}',
  failureAt: 'at {{time}}',
  chart: {
    sends: 'Sends per hour',
    sendsLabel: 'Chart of sends per hour ({{range}}): {{attempts}} sends, {{rate}} succeeded',
    latency: 'Answer time per hour (ms)',
    latencyLabel: 'Chart of answer time per hour ({{range}}): p50 {{p50}}, p99 {{p99}}',
    succeeded: 'Succeeded',
    failed: 'Failed',
    p50: 'p50',
    p99: 'p99',
    loading: 'Drawing the chart…',
    unavailable: 'The chart could not be loaded; the hour-by-hour figures are in the table below.',
  },
  table: {
    show: 'See the figures hour by hour',
    caption: 'Hours with sends ({{range}})',
    hour: 'Hour',
    deliveries: 'Deliveries',
    attempts: 'Sends',
    succeeded: 'Succeeded',
    p50: 'p50',
    p99: 'p99',
  },
  note: 'Test-runs are not counted. p50 and p99 are of the sends the receiver answered, read from fixed ranges, so they are off by at most {{percent}}%.',
  sparkline: {
    column: 'Last 24 hours',
    label: 'Last 24 hours: {{attempts}} sends, {{rate}} succeeded',
    none: 'Last 24 hours: nothing sent',
  },
};
