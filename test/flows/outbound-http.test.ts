import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { assertDestinationAllowed, createOutboundAgent, isAddressAllowed } from '../../activities/flows/outbound-http.js';
import { startTestReceiver, testOutboundPolicy } from '../support/receiver.js';
import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

describe('outbound safety', () => {
  const production = { allowLoopback: false };

  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'CGNAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['fe80::1', 'IPv6 link-local'],
    ['fc00::1', 'IPv6 unique local'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ])('refuses %s (%s)', (address) => {
    expect(isAddressAllowed(address, production)).toBe(false);
  });

  it('allows public unicast addresses, and loopback only when the policy says so', () => {
    expect(isAddressAllowed('93.184.216.34', production)).toBe(true);
    expect(isAddressAllowed('2606:2800:220:1:248:1893:25c8:1946', production)).toBe(true);
    expect(isAddressAllowed('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAddressAllowed('10.0.0.1', { allowLoopback: true })).toBe(false);
  });

  it('accepts only https URLs and refuses private IP literals before connecting', () => {
    expect(() => assertDestinationAllowed('http://example.com/hook', production)).toThrow(/https/);
    expect(() => assertDestinationAllowed('https://10.0.0.5/hook', production)).toThrow(/not allowed/);
    expect(() => assertDestinationAllowed('https://[::1]/hook', production)).toThrow(/not allowed/);
    expect(assertDestinationAllowed('https://hooks.example.com/x', production).hostname).toBe('hooks.example.com');
  });

  it('refuses at connect time a name that resolves to a loopback address, without naming the address', async () => {
    const agent = createOutboundAgent({ ...testOutboundPolicy(), allowLoopback: false });
    const refusal = (await request(receiver.url('guarded'), { method: 'POST', body: '{}', dispatcher: agent }).then(
      () => undefined,
      (error: unknown) => error,
    )) as Error;
    expect(refusal).toBeInstanceOf(Error);
    const message = `${refusal.message} ${String((refusal as Error & { cause?: Error }).cause?.message)}`;
    expect(message).toMatch(/the destination is not allowed/);
    // What the name resolved to is internal: it must not reach the shop admin who reads the attempt.
    expect(message).not.toMatch(/127\.0\.0\.1|::1/);
    expect(receiver.received('guarded')).toHaveLength(0);
    await agent.close();
  });

  it('trusts the extra CA only when configured', async () => {
    const trusting = createOutboundAgent(testOutboundPolicy());
    const response = await request(receiver.url('trusted'), { method: 'POST', body: '{}', dispatcher: trusting });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    const strict = createOutboundAgent({ allowLoopback: true });
    await expect(request(receiver.url('untrusted'), { method: 'POST', body: '{}', dispatcher: strict })).rejects.toThrow(/certificate/i);
    await Promise.all([trusting.close(), strict.close()]);
  });
});
