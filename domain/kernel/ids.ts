/** Record ids are UUIDs (DESIGN.md); checked before they reach a query, where a malformed one is a database error. */
export function isUuid(value: string | undefined): value is string {
  return value !== undefined && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
