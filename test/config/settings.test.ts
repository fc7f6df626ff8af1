import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../config/settings.js';
import { temporalConnectionOptions } from '../../config/temporal-connection.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/** What a careful production deployment sets; each test below removes or spoils one part of it. */
const production = {
  DATABASE_URL: 'postgres://owner:owner-secret@db.internal:5432/shopflow',
  APP_DB_PASSWORD: 'a-real-role-password',
  CURSOR_SECRET: 'a-cursor-secret-of-our-own-0123456789',
  WORKFLOW_SEAL_KEY: 'a-workflow-seal-key-of-our-own-0123456789',
  SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
  PAYLOAD_CODEC_KEYS: `2026-11:${Buffer.alloc(32, 7).toString('base64')}`,
  PUBLIC_BASE_URL: 'https://api.shop.example',
};

describe('settings: production unless told otherwise', () => {
  it('treats a process without NODE_ENV as production', () => {
    expect(loadSettings(production).NODE_ENV).toBe('production');
  });

  it.each([
    ['CURSOR_SECRET', 'CURSOR_SECRET must be set'],
    ['WORKFLOW_SEAL_KEY', 'WORKFLOW_SEAL_KEY must be set'],
    ['SECRETS_KEY', 'SECRETS_KEY must be set'],
    ['PAYLOAD_CODEC_KEYS', 'PAYLOAD_CODEC_KEYS must be set'],
    ['APP_DB_PASSWORD', 'must not use the development password'],
    ['PUBLIC_BASE_URL', 'PUBLIC_BASE_URL must be set'],
  ])('refuses to start without %s when NODE_ENV is unset', (name, message) => {
    const { [name as keyof typeof production]: _dropped, ...rest } = production;
    expect(() => loadSettings(rest)).toThrow(message);
  });

  it.each(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000', 'http://api.localhost'])(
    'refuses a PUBLIC_BASE_URL on loopback, %s: carrier callbacks and problem links would point nowhere',
    (PUBLIC_BASE_URL) => {
      expect(() => loadSettings({ ...production, PUBLIC_BASE_URL })).toThrow(/PUBLIC_BASE_URL must be set to the address/);
    },
  );

  it('refuses the development role password given in APP_DATABASE_URL too', () => {
    expect(() => loadSettings({ ...production, APP_DATABASE_URL: 'postgres://shopflow_app:shopflow_app@db.internal/shopflow' })).toThrow(
      /development password/,
    );
    expect(
      loadSettings({ ...production, APP_DATABASE_URL: 'postgres://shopflow_app:other@db.internal/shopflow' }).appDatabaseUrl,
    ).toContain(':other@');
  });

  it.each([
    ['OUTBOUND_ALLOW_LOOPBACK', 'true'],
    ['WEBHOOK_EXTRA_CA_FILE', '/tmp/extra-ca.pem'],
  ])('refuses the development convenience %s when NODE_ENV is unset', (name, value) => {
    expect(() => loadSettings({ ...production, [name]: value })).toThrow(/development and tests only/);
  });

  it('refuses the development codec key, even behind a key of its own, and the development operator token', () => {
    const development = `dev-1:${Buffer.from('shopflow-development-codec-key!!').toString('base64')}`;
    expect(() => loadSettings({ ...production, PAYLOAD_CODEC_KEYS: `${production.PAYLOAD_CODEC_KEYS},${development}` })).toThrow(
      /PAYLOAD_CODEC_KEYS must not hold the development key/,
    );
    expect(() => loadSettings({ ...production, CODEC_OPERATOR_TOKEN: 'shopflow-development-operator-token' })).toThrow(
      /CODEC_OPERATOR_TOKEN must be a secret of your own/,
    );
    // Production serves no codec endpoint until an operator token is set.
    expect(loadSettings(production).codecOperatorToken).toBeUndefined();
  });

  it.each([
    ['k1', /"id:base64"/],
    [`k1:${Buffer.alloc(16).toString('base64')}`, /not the base64 of 32 bytes/],
    [`k1:${Buffer.alloc(32).toString('base64')},k1:${Buffer.alloc(32, 1).toString('base64')}`, /share an id/],
  ])('names what is wrong with PAYLOAD_CODEC_KEYS=%s, never a key', (value, message) => {
    expect(() => loadSettings({ ...production, PAYLOAD_CODEC_KEYS: value })).toThrow(message);
  });

  it('reads the carrier hosts as lower-case lists, GHN’s and GHTK’s by default', () => {
    expect(loadSettings(production).carrierEndpoints).toEqual({
      hosts: {
        carrier_a: ['online-gateway.ghn.vn', 'dev-online-gateway.ghn.vn'],
        carrier_b: ['services.giaohangtietkiem.vn', 'services-staging.ghtklab.com'],
      },
      allowLoopback: false,
    });
    expect(loadSettings({ ...production, CARRIER_A_HOSTS: ' GHN.Example.vn, ' }).carrierEndpoints.hosts.carrier_a).toEqual([
      'ghn.example.vn',
    ]);
  });

  it('names every refusal at once, so one restart fixes them all', () => {
    expect(() => loadSettings({ DATABASE_URL: production.DATABASE_URL })).toThrow(
      /CURSOR_SECRET.*WORKFLOW_SEAL_KEY.*SECRETS_KEY.*development password/,
    );
  });

  it('keeps the development defaults for development and test, which the README commands set explicitly', () => {
    for (const NODE_ENV of ['development', 'test']) {
      const settings = loadSettings({ NODE_ENV, DATABASE_URL: production.DATABASE_URL, OUTBOUND_ALLOW_LOOPBACK: 'true' });
      expect(settings.OUTBOUND_ALLOW_LOOPBACK).toBe(true);
      expect(settings.appDatabaseUrl).toContain('shopflow_app:shopflow_app@');
    }
  });

  it('reads TRUST_PROXY as off, every hop, a hop count or a list of proxies', () => {
    const trust = (TRUST_PROXY?: string) =>
      loadSettings({ ...production, ...(TRUST_PROXY === undefined ? {} : { TRUST_PROXY }) }).TRUST_PROXY;
    expect(trust()).toBe(false);
    expect(trust('true')).toBe(true);
    expect(trust('2')).toBe(2);
    expect(trust('10.0.0.0/8, 192.168.1.1')).toEqual(['10.0.0.0/8', '192.168.1.1']);
  });
});

describe('the Temporal connection', () => {
  const files = () => {
    const folder = temporaryDir('temporal-tls');
    const write = (name: string) => {
      const path = join(folder, name);
      writeFileSync(path, `-----BEGIN ${name}-----`);
      return path;
    };
    return { cert: write('cert'), key: write('key'), ca: write('ca') };
  };

  it('is plain on the local dev server', () => {
    expect(temporalConnectionOptions(loadSettings({ NODE_ENV: 'test' }))).toEqual({ address: '127.0.0.1:7233' });
  });

  it('is mutual TLS when a client certificate and key are given, with the CA and server name', () => {
    const { cert, key, ca } = files();
    const options = temporalConnectionOptions(
      loadSettings({
        NODE_ENV: 'test',
        TEMPORAL_ADDRESS: 'temporal.internal:7233',
        TEMPORAL_TLS_CERT_FILE: cert,
        TEMPORAL_TLS_KEY_FILE: key,
        TEMPORAL_TLS_CA_FILE: ca,
        TEMPORAL_TLS_SERVER_NAME: 'temporal',
      }),
    );
    expect(options.address).toBe('temporal.internal:7233');
    expect(options.tls?.serverNameOverride).toBe('temporal');
    expect(Buffer.from(options.tls!.clientCertPair!.crt).toString()).toBe('-----BEGIN cert-----');
    expect(Buffer.from(options.tls!.clientCertPair!.key).toString()).toBe('-----BEGIN key-----');
    expect(Buffer.from(options.tls!.serverRootCACertificate!).toString()).toBe('-----BEGIN ca-----');
  });

  it('refuses a client certificate without its key', () => {
    const { cert } = files();
    expect(() => temporalConnectionOptions(loadSettings({ NODE_ENV: 'test', TEMPORAL_TLS_CERT_FILE: cert }))).toThrow(/go together/);
  });
});
