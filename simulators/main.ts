import { readFileSync } from 'node:fs';
import { CarrierA } from './carriers/carrier-a.js';
import { CarrierB } from './carriers/carrier-b.js';
import { startChatPlatform } from './chat/index.js';
import { WebhookReceiver } from './webhook-receiver.js';

/**
 * The stand-ins for outside services that `npm run dev` starts, each on the port it chose for it
 * (scripts/dev.ts: the next free one when busy); each says where it listens.
 */
const cert = readFileSync(requiredEnv('SIMULATOR_TLS_CERT_FILE'), 'utf8');
const key = readFileSync(requiredEnv('SIMULATOR_TLS_KEY_FILE'), 'utf8');
const receiver = await WebhookReceiver.start({ cert, key, port: portOf('WEBHOOK_RECEIVER_PORT') });
console.error(`webhook receiver listening on https://localhost:${receiver.port}/<inbox> (GET /_inbox/<inbox> lists deliveries)`);
// Plain HTTP on loopback: an adapter pointed at these URLs speaks as it would to GHN and GHTK.
const carrierA = await CarrierA.start({ port: portOf('CARRIER_A_PORT') });
console.error(`carrier A (GHN-style) listening on ${carrierA.url}/shiip/public-api/v2 (controls under ${carrierA.url}/_control)`);
const carrierB = await CarrierB.start({ port: portOf('CARRIER_B_PORT') });
console.error(`carrier B (GHTK-style) listening on ${carrierB.url}/services/shipment (controls under ${carrierB.url}/_control)`);
const chat = await startChatPlatform({
  port: portOf('CHAT_PLATFORM_PORT'),
  appSecret: process.env.CHAT_APP_SECRET,
  callbackUrl: process.env.CHAT_WEBHOOK_CALLBACK_URL,
  callbackCaPem: cert,
});
console.error(`chat platform (Graph API style) listening on ${chat.url} (controls under ${chat.url}/_control)`);

const stop = async () => {
  await Promise.all([receiver.close(), carrierA.close(), carrierB.close(), chat.close()]);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

function portOf(name: string): number {
  return Number(requiredEnv(name));
}
