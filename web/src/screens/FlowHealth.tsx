import { lazy, Suspense, useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type Schemas } from '../api/client';
import { ProblemMessage, When } from '../ui';
import { formatNumber, formatPercent } from '../i18n/format';
import { useDeliveryWords } from './delivery-words';
import type { ChartSeries } from './HealthChart';
import './health.css';

// The charting library loads with the flow's screen only, not with the app's first page; should it
// not load (a new version deployed meanwhile, the network), the figures and the table stay.
const HealthChart = lazy(() => import('./HealthChart').catch(() => ({ default: ChartUnavailable })));

function ChartUnavailable() {
  const { t } = useTranslation('health');
  return <p className="note">{t('chart.unavailable')}</p>;
}

type Health = Schemas['AdminFlowHealth'];
type Range = 'day' | 'week';

const COLOURS = { succeeded: '#146c2e', failed: '#b42318', p50: '#1f5fbf', p99: '#8a3ffc' };

/** A flow's health on its screen: figures over 24 hours or 7 days, sends and answer times per hour, the last failure. */
export function FlowHealth({ flowId }: { flowId: string }) {
  const { t } = useTranslation('health');
  const health = useQuery({
    queryKey: ['flow-health', flowId],
    queryFn: () => unwrap(api.GET('/api/admin/flows/{id}/health', { params: { path: { id: flowId } } })),
  });
  const [range, setRange] = useState<Range>('day');
  return (
    <section className="flow-health" aria-labelledby="health-title">
      <div className="title-row">
        <h2 id="health-title">{t('title')}</h2>
        <div className="range-choice" role="group" aria-label={t('range.label')}>
          {(['day', 'week'] as const).map((choice) => (
            <button
              key={choice}
              type="button"
              className={choice === range ? '' : 'secondary'}
              aria-pressed={choice === range}
              onClick={() => setRange(choice)}
            >
              {t(`range.${choice}`)}
            </button>
          ))}
        </div>
      </div>
      {health.error ? (
        <ProblemMessage error={health.error} onRetry={() => void health.refetch()} />
      ) : health.data ? (
        <HealthFigures health={health.data} range={range} />
      ) : (
        <p className="loading" aria-live="polite">
          {t('loading', { ns: 'common' })}
        </p>
      )}
    </section>
  );
}

function HealthFigures({ health, range }: { health: Health; range: Range }) {
  const { t } = useTranslation('health');
  const words = useDeliveryWords();
  const { language } = words;
  const figures = range === 'day' ? health.last24Hours : health.last7Days;
  const hours = useMemo(() => health.hours.slice(range === 'day' ? -24 : 0), [health, range]);
  const number = (value: number) => formatNumber(value, language);
  const ms = (value: number | null) => (value === null ? t('noFigure') : t('milliseconds', { value: number(value) }));
  const rate = figures.successRate === null ? t('noFigure') : formatPercent(figures.successRate, language);
  const rangeWords = t(`range.${range}`);
  const charts = useMemo(() => {
    const times = hours.map((hour) => Date.parse(hour.hour) / 1000);
    const sends: ChartSeries[] = [
      { label: t('chart.succeeded'), colour: COLOURS.succeeded, kind: 'bars', values: hours.map((hour) => hour.succeeded) },
      { label: t('chart.failed'), colour: COLOURS.failed, kind: 'bars', values: hours.map((hour) => hour.attempts - hour.succeeded) },
    ];
    const latency: ChartSeries[] = [
      { label: t('chart.p50'), colour: COLOURS.p50, kind: 'line', values: hours.map((hour) => hour.p50Ms) },
      { label: t('chart.p99'), colour: COLOURS.p99, kind: 'line', values: hours.map((hour) => hour.p99Ms) },
    ];
    return { times, sends, latency };
  }, [hours, t]);
  const busy = hours.filter((hour) => hour.attempts > 0);
  const failure = health.lastFailure;
  return (
    <>
      <dl className="health-figures">
        <div>
          <dt>{t('figures.attempts')}</dt>
          <dd>{number(figures.attempts)}</dd>
        </div>
        <div>
          <dt>{t('figures.successRate')}</dt>
          <dd>{rate}</dd>
        </div>
        <div>
          <dt>{t('figures.p50')}</dt>
          <dd>{ms(figures.p50Ms)}</dd>
        </div>
        <div>
          <dt>{t('figures.p99')}</dt>
          <dd>{ms(figures.p99Ms)}</dd>
        </div>
        <div className="last-failure">
          <dt>{t('figures.lastFailure')}</dt>
          <dd>
            {failure ? (
              <>
                {failure.statusCode === null ? words.failure(failure.error) : t('failureStatus', { status: failure.statusCode })}{' '}
                {t('failureAt', { time: words.when(failure.at) })}
              </>
            ) : (
              t('noFailure')
            )}
          </dd>
        </div>
      </dl>
      {figures.attempts === 0 ? (
        <p className="empty">{t('noAttempts')}</p>
      ) : (
        <Suspense fallback={<p className="loading">{t('chart.loading')}</p>}>
          <ChartPart
            title={t('chart.sends')}
            label={t('chart.sendsLabel', { range: rangeWords, attempts: number(figures.attempts), rate })}
            hours={charts.times}
            series={charts.sends}
          />
          <ChartPart
            title={t('chart.latency')}
            label={t('chart.latencyLabel', { range: rangeWords, p50: ms(figures.p50Ms), p99: ms(figures.p99Ms) })}
            hours={charts.times}
            series={charts.latency}
          />
          <details className="health-table">
            <summary>{t('table.show')}</summary>
            {/* Wider than a phone: it scrolls sideways, so the keyboard can reach it too. */}
            <div className="table-wrap" role="region" aria-labelledby="health-table-caption" tabIndex={0}>
              <table>
                <caption id="health-table-caption">{t('table.caption', { range: rangeWords })}</caption>
                <thead>
                  <tr>
                    {(['hour', 'deliveries', 'attempts', 'succeeded', 'p50', 'p99'] as const).map((column) => (
                      <th key={column} scope="col">
                        {t(`table.${column}`)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {busy.map((hour) => (
                    <tr key={hour.hour}>
                      <th scope="row">
                        <When at={hour.hour} />
                      </th>
                      <td>{number(hour.deliveries)}</td>
                      <td>{number(hour.attempts)}</td>
                      <td>{number(hour.succeeded)}</td>
                      <td>{ms(hour.p50Ms)}</td>
                      <td>{ms(hour.p99Ms)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </Suspense>
      )}
      <p className="note">{t('note', { percent: number(health.latencyErrorPercent) })}</p>
    </>
  );
}

/** One chart under its heading, with the colours of its series named beside it. */
function ChartPart({ title, label, hours, series }: { title: string; label: string; hours: number[]; series: ChartSeries[] }) {
  const { i18n } = useTranslation();
  return (
    <figure className="health-chart-part">
      <figcaption>
        <span className="chart-title">{title}</span>
        <span className="chart-keys" aria-hidden="true">
          {series.map((line) => (
            <span key={line.label} className="chart-key">
              <svg width="12" height="12" aria-hidden="true">
                <rect width="12" height="12" fill={line.colour} />
              </svg>
              {line.label}
            </span>
          ))}
        </span>
      </figcaption>
      <HealthChart hours={hours} series={series} label={label} language={i18n.language} />
    </figure>
  );
}
