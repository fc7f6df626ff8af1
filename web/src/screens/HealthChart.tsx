import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { SHOP_TIME_ZONE } from '../i18n/format';

/** One series of an hourly chart: its words, colour and values (null: no figure that hour). */
export interface ChartSeries {
  label: string;
  colour: string;
  values: (number | null)[];
  kind: 'bars' | 'line';
}

const hourLabel = new Intl.DateTimeFormat('en-GB', { timeZone: SHOP_TIME_ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
const dayLabel = new Intl.DateTimeFormat('en-GB', { timeZone: SHOP_TIME_ZONE, day: '2-digit', month: '2-digit' });

/**
 * An hourly chart drawn by uPlot (a canvas): bars side by side or lines, times read in the shop's zone
 * (HH:mm over a day, dd/MM over a week, no words of any language), figures in the app's language. The screen around it gives its
 * figures in words and as a table; the canvas itself is an image with a label.
 */
export default function HealthChart({
  hours,
  series,
  label,
  language,
}: {
  hours: number[];
  series: ChartSeries[];
  label: string;
  language: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current!;
    const week = hours.length > 24;
    const bars = series.filter((line) => line.kind === 'bars').length;
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: 180,
        legend: { show: false },
        cursor: { show: false },
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), SHOP_TIME_ZONE),
        scales: { x: { time: true }, y: { range: (_, min, max) => [0, Math.max(max, min, 1) * 1.1] } },
        axes: [
          {
            // A tick a day over a week (each day named once), every few hours over a day.
            incrs: week ? [86_400, 172_800] : [3_600, 7_200, 10_800, 21_600, 43_200],
            values: (_, splits) => splits.map((seconds) => (week ? dayLabel : hourLabel).format(new Date(seconds * 1000))),
            stroke: '#5a6472',
          },
          // Counts and milliseconds in the app's language, not the browser's (uPlot's default).
          { stroke: '#5a6472', size: 48, values: (_, splits) => splits.map((value) => value.toLocaleString(language)) },
        ],
        series: [
          {},
          ...series.map((line, index) => ({
            label: line.label,
            stroke: line.colour,
            fill: line.kind === 'bars' ? line.colour : undefined,
            width: line.kind === 'bars' ? 0 : 2,
            // Lines keep uPlot's points where hours are few and far apart: an hour alone is a dot, not nothing.
            ...(line.kind === 'bars' ? { points: { show: false } } : {}),
            // Bars of the same hour side by side: the first to the left of the hour's middle, the next to its right.
            paths:
              line.kind === 'bars'
                ? uPlot.paths.bars!({ size: [bars > 1 ? 0.4 : 0.7, 24], align: bars > 1 ? (index === 0 ? -1 : 1) : 0 })
                : undefined,
          })),
        ],
      },
      [hours, ...series.map((line) => line.values)],
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: 180 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [hours, series, language]);
  return <div ref={box} className="health-chart" role="img" aria-label={label} />;
}
