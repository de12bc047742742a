import { execFile } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The RadSec certificates `hotspot-ctl devices radsec-cert` makes (docs/decisions/0025): node:crypto
 * cannot create X.509 certificates, so this drives the `openssl` command every Debian box has.
 * On first use it creates, in `<data dir>/radsec/` (mode 0700, keys 0600), a CA and this box's
 * server certificate signed by it; then each call issues one router a client certificate whose
 * subject CN is the router's NAS id. Private keys are made in a private temporary directory and
 * written out with mode 0600; nothing here prints or logs one.
 */

const run = promisify(execFile);

/** Validity: routers are replaced before their certificates run out; the CA outlives them. */
const CA_DAYS = 7300;
const CERT_DAYS = 3650;
/** RSA 2048: every RADIUS client with TLS (RouterOS 7, radsecproxy, FreeRADIUS) takes it. */
const KEY = 'rsa:2048';

export interface RadsecFiles {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
}

export const radsecFiles = (dir: string): RadsecFiles => ({
  caCert: path.join(dir, 'ca.pem'),
  caKey: path.join(dir, 'ca.key'),
  serverCert: path.join(dir, 'server.pem'),
  serverKey: path.join(dir, 'server.key'),
});

export class RadsecCertError extends Error {}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 60_000 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    const code = (err as NodeJS.ErrnoException).code;
    throw new RadsecCertError(
      code === 'ENOENT'
        ? 'the openssl command is needed: apt-get install openssl'
        : `openssl ${args[0] ?? ''} failed: ${stderr.trim().split('\n')[0] ?? ''}`,
    );
  }
}

/** A -subj value with one RDN, CN=`value`: `/`, `+`, `=` and `\` escaped as openssl reads them. */
const subject = (cn: string): string => `/CN=${cn.replace(/[\\/+=]/g, '\\$&')}`;

/** The first subject CN of a certificate as Node reads it. */
function commonName(cert: X509Certificate): string | null {
  const lines = cert.subject.split('\n').filter((l) => l.startsWith('CN='));
  return lines.length === 1 ? (lines[0] ?? '').slice(3) : null;
}

/** Runs `fn` with a private (0700) temporary directory, removed afterwards. */
async function withScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hotspot-ctl-radsec-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const writePrivate = (file: string, from: string): void => {
  copyFileSync(from, file);
  chmodSync(file, 0o600);
};

/** Signs `csr` with the CA, with `extensions` (openssl extension lines). */
async function sign(
  files: RadsecFiles,
  scratch: string,
  csr: string,
  out: string,
  extensions: string[],
): Promise<void> {
  const ext = path.join(scratch, 'ext.cnf');
  writeFileSync(ext, `${extensions.join('\n')}\n`);
  await openssl([
    'x509',
    '-req',
    '-in',
    csr,
    '-CA',
    files.caCert,
    '-CAkey',
    files.caKey,
    // A random serial: certificates re-issued for one router must differ (RFC 5280 §4.1.2.2).
    '-set_serial',
    `0x${randomBytes(16)
      .toString('hex')
      .replace(/^[89a-f]/, '7')}`,
    '-days',
    String(CERT_DAYS),
    '-sha256',
    '-extfile',
    ext,
    '-out',
    out,
  ]);
}

/**
 * Creates the CA and this box's server certificate when they do not exist yet. `serverNames`
 * (IP addresses or DNS names routers reach this box by) go into the server certificate's
 * subjectAltName; they matter only when it is created.
 */
export async function ensureRadsecCa(dir: string, serverNames: readonly string[]): Promise<RadsecFiles> {
  const files = radsecFiles(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (!existsSync(files.caCert) || !existsSync(files.caKey)) {
    await withScratch(async (scratch) => {
      const key = path.join(scratch, 'ca.key');
      const cert = path.join(scratch, 'ca.pem');
      await openssl([
        'req',
        '-x509',
        '-newkey',
        KEY,
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        String(CA_DAYS),
        '-sha256',
        '-subj',
        subject('hotspot-ctl RadSec CA'),
        '-addext',
        'basicConstraints=critical,CA:TRUE,pathlen:0',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ]);
      writePrivate(files.caKey, key);
      copyFileSync(cert, files.caCert);
    });
  }
  if (!existsSync(files.serverCert) || !existsSync(files.serverKey)) {
    const names = serverNames.length > 0 ? serverNames : ['localhost'];
    const san = names.map((n) => (isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    await withScratch(async (scratch) => {
      const key = path.join(scratch, 'server.key');
      const csr = path.join(scratch, 'server.csr');
      const cert = path.join(scratch, 'server.pem');
      await openssl([
        'req',
        '-new',
        '-newkey',
        KEY,
        '-nodes',
        '-keyout',
        key,
        '-out',
        csr,
        '-subj',
        subject(names[0] ?? 'localhost'),
      ]);
      await sign(files, scratch, csr, cert, [
        'basicConstraints=CA:FALSE',
        'keyUsage=critical,digitalSignature,keyEncipherment',
        'extendedKeyUsage=serverAuth',
        `subjectAltName=${san}`,
      ]);
      writePrivate(files.serverKey, key);
      copyFileSync(cert, files.serverCert);
    });
  }
  return files;
}

export interface IssuedCertificate {
  certFile: string;
  keyFile: string;
  caFile: string;
  /** SHA-256 fingerprint as Node's TLS reports it (`AB:CD:…`), for the device's pin. */
  fingerprint: string;
  notAfter: string;
}

/** The file name stem of a router's certificate: its NAS id cut to safe characters. */
export const certificateStem = (nasId: string): string =>
  `radsec-${nasId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64)}`;

/**
 * Issues a client certificate for the router with NAS id `nasId` (its subject CN) and writes it,
 * its key (0600) and the CA certificate to `outDir`.
 */
export async function issueClientCertificate(
  files: RadsecFiles,
  nasId: string,
  outDir: string,
): Promise<IssuedCertificate> {
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  const stem = certificateStem(nasId);
  const out = {
    certFile: path.join(outDir, `${stem}.pem`),
    keyFile: path.join(outDir, `${stem}.key`),
    caFile: path.join(outDir, 'radsec-ca.pem'),
  };
  return withScratch(async (scratch) => {
    const key = path.join(scratch, 'client.key');
    const csr = path.join(scratch, 'client.csr');
    const cert = path.join(scratch, 'client.pem');
    await openssl([
      'req',
      '-new',
      '-newkey',
      KEY,
      '-nodes',
      '-keyout',
      key,
      '-out',
      csr,
      '-subj',
      subject(nasId),
    ]);
    await sign(files, scratch, csr, cert, [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=clientAuth',
    ]);
    const x509 = new X509Certificate(readFileSync(cert));
    // What the listener will read as the router's NAS id must be exactly it.
    if (commonName(x509) !== nasId)
      throw new RadsecCertError(`cannot put the NAS id ${JSON.stringify(nasId)} into a certificate's CN`);
    writePrivate(out.keyFile, key);
    copyFileSync(cert, out.certFile);
    copyFileSync(files.caCert, out.caFile);
    return { ...out, fingerprint: x509.fingerprint256, notAfter: new Date(x509.validTo).toISOString() };
  });
}
