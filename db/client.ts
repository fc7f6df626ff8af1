import postgres from 'postgres';

export type Sql = postgres.Sql;

/** A postgres.js pool: camelCase columns, numeric kept as strings (decimal.js reads them), no notices on stdout. */
export function createSql(url: string, options: { max?: number; applicationName: string }): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    transform: postgres.camel,
    onnotice: () => {},
    connection: { application_name: options.applicationName },
  });
}
