import { readFileSync } from 'node:fs';
import { WebhookReceiver } from '../simulators/webhook-receiver.js';

/** One webhook receiver as a process (bench/receiver-process.ts starts and drives it). */
const receiver = await WebhookReceiver.start({
  cert: readFileSync(process.env.RECEIVER_TLS_CERT_FILE!, 'utf8'),
  key: readFileSync(process.env.RECEIVER_TLS_KEY_FILE!, 'utf8'),
  port: Number(process.env.RECEIVER_PORT),
});
console.error(`webhook receiver listening on https://localhost:${receiver.port}`);
const stop = async () => {
  await receiver.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
