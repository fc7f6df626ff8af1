"""A webhook receiver: checks each delivery's signature with the standardwebhooks package,
then handles it once."""

import os
from http.server import BaseHTTPRequestHandler, HTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

# The signing secret of the flow's HTTP-send block (whsec_…).
webhook = Webhook(os.environ["WEBHOOK_SECRET"])
# Delivery ids already handled. Keep them in your database: a delivery may arrive more than once.
seen = set()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        # The body exactly as received: the signature covers these bytes, not a re-serialised copy.
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        try:
            event = webhook.verify(body, dict(self.headers))
        except WebhookVerificationError:
            self.send_response(400)
            self.end_headers()
            return
        delivery_id = self.headers["webhook-id"]
        if delivery_id not in seen:
            seen.add(delivery_id)
            print(delivery_id, event["type"], event["id"], flush=True)
        # Answer 2xx quickly; do slow work after answering.
        self.send_response(204)
        self.end_headers()


server = HTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8080"))), Receiver)
print(f"listening on {server.server_address[1]}", flush=True)
server.serve_forever()
