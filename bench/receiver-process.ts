import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { ReceivedRequest, ScriptedResponse } from '../simulators/webhook-receiver.js';
import { freePort } from '../scripts/bootstrap/ports.js';
import { outputMatches, type ProcessGroup } from '../scripts/processes.js';
import type { DevCertificate } from '../scripts/bootstrap/certificates.js';

/**
 * An integrator's webhook receiver in a process of its own (simulators/webhook-receiver.ts, run by
 * bench/receiver-server.ts), driven over its HTTP controls. Each shop's integrator runs its own
 * server: a receiver inside the bench process would time one shop's arrivals on a loop that also
 * answers the other shop's flood and writes its events.
 */
export class ReceiverProcess {
  readonly port: number;
  /** Trusts the development certificate the receiver answers with. */
  private readonly dispatcher: Agent;

  private constructor(port: number, dispatcher: Agent) {
    this.port = port;
    this.dispatcher = dispatcher;
  }

  static async start(group: ProcessGroup, name: string, certificate: DevCertificate): Promise<ReceiverProcess> {
    const port = await freePort(3450);
    const child = group.startTs(name, 'bench/receiver-server.ts', {
      RECEIVER_PORT: String(port),
      RECEIVER_TLS_CERT_FILE: certificate.certFile,
      RECEIVER_TLS_KEY_FILE: certificate.keyFile,
    });
    await outputMatches(child, /webhook receiver listening/, 60_000, name);
    return new ReceiverProcess(port, new Agent({ connect: { ca: readFileSync(certificate.certFile, 'utf8') } }));
  }

  url(inbox: string): string {
    return `https://localhost:${this.port}/${inbox}`;
  }

  async respondWith(inbox: string, responses: ScriptedResponse[]): Promise<void> {
    const answer = await this.control('PUT', `_script/${inbox}`, JSON.stringify(responses));
    if (answer.status !== 204) throw new Error(`receiver ${this.port}: scripting ${inbox} answered ${answer.status}`);
  }

  /** What reached `inbox`, each with the receiver's own time of arrival. */
  async received(inbox: string): Promise<ReceivedRequest[]> {
    const answer = await this.control('GET', `_inbox/${inbox}`);
    const requests = JSON.parse(answer.body) as (Omit<ReceivedRequest, 'receivedAt'> & { receivedAt: string })[];
    return requests.map((arrived) => ({ ...arrived, receivedAt: new Date(arrived.receivedAt) }));
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async control(method: 'GET' | 'PUT', path: string, body?: string): Promise<{ status: number; body: string }> {
    const answer = await request(`https://localhost:${this.port}/${path}`, { method, body, dispatcher: this.dispatcher });
    return { status: answer.statusCode, body: await answer.body.text() };
  }
}
