/** What `npm test` passes to the suite: the started services. */
export function testEnv(
  name:
    | 'DATABASE_URL'
    | 'APP_DATABASE_URL'
    | 'TEMPORAL_ADDRESS'
    | 'WEBHOOK_EXTRA_CA_FILE'
    | 'SIMULATOR_TLS_CERT_FILE'
    | 'SIMULATOR_TLS_KEY_FILE',
): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with npm test, which starts the services first`);
  return value;
}

/** The suite's WORKFLOW_SEAL_KEY: what test workers accept, and what the test API and starters seal with. */
export const TEST_WORKFLOW_SEAL_KEY = 'test-workflow-seal-key-0123456789abcdefgh';
