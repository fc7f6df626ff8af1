import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../api/client';
import { formatNumber, formatPercent } from '../i18n/format';
import { useDeliveryWords } from './delivery-words';
import './health.css';

const WIDTH = 96;
const HEIGHT = 24;

/**
 * A flow's sends per hour over the last 24 hours, as little bars, in the flows list (one request for
 * every flow of the list: the cells share it), with its figures in words for a screen reader.
 */
export function FlowSparkline({ flowId }: { flowId: string }) {
  const { t } = useTranslation('health');
  const { language } = useDeliveryWords();
  const lines = useQuery({ queryKey: ['flow-sparklines'], queryFn: () => unwrap(api.GET('/api/admin/flows/health')) });
  const line = lines.data?.data.find((entry) => entry.flowId === flowId);
  if (!line) return <span className="sparkline-empty">{lines.isPending ? '…' : '—'}</span>;
  const total = line.attempts.reduce((sum, count) => sum + count, 0);
  const highest = Math.max(1, ...line.attempts);
  const barWidth = WIDTH / line.attempts.length;
  // Red at a glance once more than one send in twenty failed.
  const failing = total > 0 && line.succeeded / total < 0.95;
  const label =
    total === 0
      ? t('sparkline.none')
      : t('sparkline.label', { attempts: formatNumber(total, language), rate: formatPercent(line.succeeded / total, language) });
  return (
    <svg
      className={failing ? 'sparkline failing' : 'sparkline'}
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <line x1={0} x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="sparkline-base" />
      {line.attempts.map((count, hour) => {
        const height = count === 0 ? 0 : Math.max(2, (count / highest) * (HEIGHT - 2));
        return <rect key={hour} x={hour * barWidth + 0.5} y={HEIGHT - height} width={barWidth - 1} height={height} />;
      })}
    </svg>
  );
}
