import { readFileSync } from 'node:fs';
import { WebhookReceiver } from './webhook-receiver.js';

/** The stand-ins for outside services that `npm run dev` starts. */
const cert = readFileSync(requiredEnv('SIMULATOR_TLS_CERT_FILE'), 'utf8');
const key = readFileSync(requiredEnv('SIMULATOR_TLS_KEY_FILE'), 'utf8');
const receiver = await WebhookReceiver.start({ cert, key, port: Number(process.env.WEBHOOK_RECEIVER_PORT ?? 3443) });
console.error(`webhook receiver listening on https://localhost:${receiver.port}/<inbox> (GET /_inbox/<inbox> lists deliveries)`);

const stop = async () => {
  await receiver.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}
