// A webhook receiver: checks each delivery's signature with the standardwebhooks package,
// then handles it once.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

// The signing secret of the flow's HTTP-send block (whsec_…).
const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? '');
// Delivery ids already handled. Keep them in your database: a delivery may arrive more than once.
const seen = new Set<string>();

interface Envelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    // The body exactly as received: the signature covers these bytes, not a re-serialised copy.
    const body = Buffer.concat(chunks).toString('utf8');
    let event: Envelope;
    try {
      event = webhook.verify(body, request.headers as Record<string, string>) as Envelope;
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      response.writeHead(400).end();
      return;
    }
    const deliveryId = request.headers['webhook-id'] as string;
    if (!seen.has(deliveryId)) {
      seen.add(deliveryId);
      console.log(deliveryId, event.type, event.id);
    }
    // Answer 2xx quickly; do slow work after answering.
    response.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  console.log(`listening on ${(server.address() as AddressInfo).port}`);
});
