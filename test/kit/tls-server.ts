import { readFileSync } from 'node:fs';
import { testEnv } from '../support/environment.js';

/** The certificate `npm test` made for local HTTPS receivers (the worker trusts it as an extra CA). */
export const receiverTls = () => ({
  cert: readFileSync(testEnv('SIMULATOR_TLS_CERT_FILE'), 'utf8'),
  key: readFileSync(testEnv('SIMULATOR_TLS_KEY_FILE'), 'utf8'),
});
