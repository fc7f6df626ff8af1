/** GHTK writes times in Vietnam's local time (UTC+7), in a few formats of its own. */
const vietnamOffsetMs = 7 * 60 * 60 * 1000;

function local(date: Date): string {
  return new Date(date.getTime() + vietnamOffsetMs).toISOString();
}

/** `2024-06-03 14:20:00`, as in `created` and `modified`. */
export function vnDateTime(date: Date): string {
  const iso = local(date);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** `2024-06-03T14:20:00+07:00`, as in a callback's `action_time`. */
export function vnIsoTime(date: Date): string {
  return `${local(date).slice(0, 19)}+07:00`;
}

export function vnHour(date: Date): number {
  return Number(local(date).slice(11, 13));
}

/** `Chiều 2024-06-04`: a work shift (morning, afternoon, evening) and a local date, `days` after `date`. */
export function vnShiftOfDay(date: Date, days: number, shift: 'Sáng' | 'Chiều' | 'Tối'): string {
  return `${shift} ${local(new Date(date.getTime() + days * 24 * 60 * 60 * 1000)).slice(0, 10)}`;
}
