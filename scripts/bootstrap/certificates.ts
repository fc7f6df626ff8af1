import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { dataDir } from './paths.js';
import { step } from './progress.js';

export interface DevCertificate {
  certFile: string;
  keyFile: string;
}

const certDir = join(dataDir, 'certs');

/**
 * A self-signed certificate for `localhost` and `127.0.0.1`, used by the local HTTPS webhook receiver.
 * The worker trusts it only through `WEBHOOK_EXTRA_CA_FILE`, set by the dev and test launchers.
 */
export async function ensureDevCertificate(): Promise<DevCertificate> {
  const certFile = join(certDir, 'localhost.crt');
  const keyFile = join(certDir, 'localhost.key');
  if (existsSync(certFile) && existsSync(keyFile)) return { certFile, keyFile };
  await step('creating a self-signed certificate for the local webhook receiver', async () => {
    mkdirSync(certDir, { recursive: true });
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      notAfterDate: new Date(Date.now() + 5 * 365 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
          ],
        },
      ],
    });
    writeFileSync(keyFile, pems.private, { mode: 0o600 });
    writeFileSync(certFile, pems.cert);
  });
  return { certFile, keyFile };
}

export function readCertificate(certificate: DevCertificate): { cert: string; key: string } {
  return { cert: readFileSync(certificate.certFile, 'utf8'), key: readFileSync(certificate.keyFile, 'utf8') };
}
