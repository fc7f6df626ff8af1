import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { assertDestinationAllowed, createOutboundAgent, isAddressAllowed, type Resolver } from '../../adapters/outbound/outbound-http.js';
import { createDeliveryActivities } from '../../activities/deliveries/delivery-activities.js';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { TEST_WORKFLOW_SEAL_KEY } from '../support/environment.js';
import { testSecretsKey } from '../support/fixtures.js';
import { testOutboundPolicy } from '../support/receiver.js';
import { useSuite } from '../support/suite.js';

const { db, receiver, shop } = useSuite({ shop: true, receiver: true });

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
    ['2130706433', 'decimal IPv4 of 127.0.0.1'],
    ['0x7f000001', 'hex IPv4 of 127.0.0.1'],
    ['017700000001', 'octal IPv4 of 127.0.0.1'],
    ['0177.0.0.1', 'octal dotted IPv4 of 127.0.0.1'],
    ['0xa000001', 'hex IPv4 of 10.0.0.1'],
    ['::', 'IPv6 unspecified'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::10.0.0.1', 'NAT64 of 10.0.0.1, dotted'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2001::1', 'Teredo'],
  ])('refuses %s (%s)', (address) => {
    expect(isAddressAllowed(address, production)).toBe(false);
  });

  it('allows public unicast addresses, and loopback only when the policy says so', () => {
    expect(isAddressAllowed('93.184.216.34', production)).toBe(true);
    expect(isAddressAllowed('2606:2800:220:1:248:1893:25c8:1946', production)).toBe(true);
    expect(isAddressAllowed('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAddressAllowed('10.0.0.1', { allowLoopback: true })).toBe(false);
    // NAT64 and 6to4 are judged by the IPv4 address they carry: a public one passes.
    expect(isAddressAllowed('64:ff9b::5db8:d822', production)).toBe(true);
    expect(isAddressAllowed('2002:5db8:d822::1', production)).toBe(true);
  });

  it.each(['2130706433', '0x7f000001', '017700000001', '0.0.0.0', '[::]', '[64:ff9b::7f00:1]', '[2002:a00:1::1]'])(
    'refuses the URL https://%s/ before connecting',
    (host) => {
      expect(() => assertDestinationAllowed(`https://${host}/hook`, production)).toThrow(/not allowed/);
    },
  );

  it('refuses at connect time a DNS name that resolves to a private address (a local resolver stand-in)', async () => {
    const names: Record<string, string[]> = {
      'internal.hooks.test': ['10.0.0.7'],
      'mixed.hooks.test': ['93.184.216.34', '192.168.0.10'],
      'nat64.hooks.test': ['64:ff9b::a9fe:a9fe'],
    };
    const resolver: Resolver = (hostname, _options, callback) =>
      callback(
        null,
        (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    const agent = createOutboundAgent(production, resolver);
    for (const hostname of Object.keys(names)) {
      const refusal = (await request(`https://${hostname}/hook`, { method: 'POST', body: '{}', dispatcher: agent }).then(
        () => undefined,
        (error: unknown) => error,
      )) as Error & { cause?: Error };
      expect(`${refusal.message} ${String(refusal.cause?.message)}`).toMatch(/the destination is not allowed/);
      expect(`${refusal.message} ${String(refusal.cause?.message)}`).not.toMatch(/10\.0\.0\.7|192\.168|a9fe/);
    }
    await agent.close();
  });

  it('never follows a redirect: a 3xx is the attempt’s answer, retried, and its Location gets nothing', async () => {
    receiver.respondWith('redirecting', [{ status: 307, headers: { location: receiver.url('redirect-target') } }]);
    const agent = createOutboundAgent(testOutboundPolicy());
    const { sendWebhook } = createDeliveryActivities({
      sql: db.app,
      secretsKey: testSecretsKey,
      dispatcher: agent,
      policy: testOutboundPolicy(),
      userAgent: 'test',
    });
    const url = receiver.url('redirecting');
    const { flowId } = await shop.newFlow({ name: 'Orders to ERP', eventType: 'order.created', url, state: 'on' });
    const input = sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, {
      shopId: shop.shopId,
      flowId,
      eventId: 'evt_1',
      eventType: 'order.created',
      deliveryId: 'msg_1',
      url,
      payload: '{}',
    });
    const { attempt, recorded } = await sendWebhook(input, 'delivery:test');
    expect(attempt).toMatchObject({ statusCode: 307, verdict: 'retry' });
    expect(recorded).toBe(true);
    expect(receiver.received('redirecting')).toHaveLength(1);
    expect(receiver.received('redirect-target')).toHaveLength(0);
    await agent.close();
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
