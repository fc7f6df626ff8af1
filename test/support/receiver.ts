import { readFileSync } from 'node:fs';
import { WebhookReceiver } from '../../simulators/webhook-receiver.js';
import type { OutboundPolicy } from '../../adapters/outbound/outbound-http.js';
import { testEnv } from './environment.js';

/** The local HTTPS receiver with the self-signed certificate `npm test` prepared. */
export function startTestReceiver(): Promise<WebhookReceiver> {
  return WebhookReceiver.start({
    cert: readFileSync(testEnv('SIMULATOR_TLS_CERT_FILE'), 'utf8'),
    key: readFileSync(testEnv('SIMULATOR_TLS_KEY_FILE'), 'utf8'),
  });
}

/** What the dev and test settings allow: loopback, and the receiver's certificate as an extra CA. */
export function testOutboundPolicy(): OutboundPolicy {
  return { allowLoopback: true, extraCaPem: readFileSync(testEnv('WEBHOOK_EXTRA_CA_FILE'), 'utf8') };
}
