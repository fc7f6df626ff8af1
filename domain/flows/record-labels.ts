/** The fields a person knows an event's record by, by the event type's family (dotted paths into its data). */
const LABEL_FIELDS: Record<string, readonly string[]> = {
  order: ['code', 'billFullName'],
  product: ['name'],
  inventory: ['variantCode', 'warehouseName'],
  customer: ['name'],
  shipment: ['orderCode', 'recipientName'],
  message: ['sender.name'],
};

/** Long enough for a code and a name; a label is not the record. */
const MAX_LABEL = 200;

function textAt(data: Record<string, unknown>, path: string): string | null {
  let value: unknown = data;
  for (const key of path.split('.'))
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/**
 * What a delivery was about, as a person reads it: an order's code and buyer (`DH000123 · Nguyễn Văn
 * An`), a product's or customer's name, a variant's code and warehouse, a shipment's order and
 * recipient, a message's sender; the record's code or name when its family's fields are absent; null
 * when it has neither.
 */
export function recordLabel(eventType: string, data: Record<string, unknown>): string | null {
  const parts = (LABEL_FIELDS[eventType.split('.')[0]!] ?? []).map((path) => textAt(data, path)).filter((part) => part !== null);
  const label = parts.length > 0 ? parts.join(' · ') : (textAt(data, 'code') ?? textAt(data, 'name'));
  return label === null ? null : label.slice(0, MAX_LABEL);
}
