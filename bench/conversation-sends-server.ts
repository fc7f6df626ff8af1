import { createServer } from 'node:http';

const CONVERSATION_MESSAGES = /^\/conversations\/([^/]+)\/messages$/;

export interface ConversationSend {
  conversationId: string;
  text: string;
  authorization: string | undefined;
}

/**
 * A bare server of `POST /conversations/{id}/messages` on PORT, the chat scenario's baselines: node:http,
 * the body's `text`, and `send`'s answer as 201 JSON, or the status it gives instead. `onClose` runs
 * at SIGTERM, once the server has closed.
 */
export function serveConversationSends(send: (request: ConversationSend) => Promise<object | number>, onClose = async () => {}): void {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const conversationId = CONVERSATION_MESSAGES.exec(request.url ?? '')?.[1];
      const answer = conversationId
        ? await send({
            conversationId,
            text: (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text: string }).text,
            authorization: request.headers.authorization,
          })
        : 404;
      if (typeof answer === 'number') {
        response.writeHead(answer).end();
        return;
      }
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => server.close(() => void onClose().then(() => process.exit(0))));
}
