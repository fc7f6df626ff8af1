import type { Language } from './index';

/** The shop's time zone: dates and times are read in Vietnam whatever the browser's zone. */
export const SHOP_TIME_ZONE = 'Asia/Ho_Chi_Minh';

const locales: Record<Language, string> = { vi: 'vi-VN', en: 'en-GB' };

/** `25/11/2026 14:05` in the shop's zone (dd/MM/yyyy in both languages). */
export function formatDateTime(value: string | Date, language: Language): string {
  const parts = new Intl.DateTimeFormat(locales[language], {
    timeZone: SHOP_TIME_ZONE,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(value));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((item) => item.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} ${part('hour')}:${part('minute')}`;
}

/** `1.234` / `1,234`: a count as the language writes it. */
export function formatNumber(value: number, language: Language): string {
  return value.toLocaleString(locales[language]);
}

/** `0.975` as `97,5%` / `97.5%`. */
export function formatPercent(share: number, language: Language): string {
  return new Intl.NumberFormat(locales[language], { style: 'percent', maximumFractionDigits: 1 }).format(share);
}
