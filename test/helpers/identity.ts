import { readOutbox, type OutboxEntry } from '../../src/notify/index.js';
import type { TestApp } from './app.js';
import { Client } from './client.js';

export const PASSWORD = 'correct horse battery';

/**
 * Stores, for the account with `email`, a hash of `password` made with older argon2 parameters
 * (as an account from an earlier release has), so the next login rehashes it. Returns that hash.
 */
export async function withLegacyPasswordHash(
  app: TestApp,
  email: string,
  password = PASSWORD,
): Promise<string> {
  const argon2 = (await import('argon2')).default;
  const legacy = await argon2.hash(password, {
    type: argon2.argon2id,
    memoryCost: 4096,
    timeCost: 1,
    parallelism: 1,
  });
  await app.app.deps.db
    .updateTable('users')
    .set({ password_hash: legacy })
    .where('email', '=', email)
    .execute();
  return legacy;
}

/** Messages spooled for `to`, oldest first. */
export async function outboxFor(dataDir: string, to: string): Promise<OutboxEntry[]> {
  return (await readOutbox(dataDir)).filter((e) => e.to === to);
}

/** The last 6-digit code sent to `to`, waiting for the first one (registration sends in the background). */
export async function lastCode(dataDir: string, to: string): Promise<string> {
  const started = Date.now();
  for (;;) {
    const entries = await outboxFor(dataDir, to);
    const match = /\b(\d{6})\b/.exec(entries.at(-1)?.text ?? '');
    if (match?.[1]) return match[1];
    if (Date.now() - started > 5000) throw new Error(`no code in the outbox for ${to}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Waits until the outbox for `to` satisfies `ready` (alerts are sent in the background). */
export async function waitForMail(
  app: TestApp,
  to: string,
  ready: (entries: OutboxEntry[]) => boolean,
): Promise<OutboxEntry[]> {
  const started = Date.now();
  for (;;) {
    const entries = await outboxFor(app.dataDir, to);
    if (ready(entries)) return entries;
    if (Date.now() - started > 5000)
      throw new Error(`outbox for ${to} never got there: ${JSON.stringify(entries)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Waits for the outbox to hold `count` messages for `to`. */
export const waitForOutbox = (app: TestApp, to: string, count: number): Promise<OutboxEntry[]> =>
  waitForMail(app, to, (entries) => entries.length >= count);

/** Waits for a message to `to` whose subject ends with `subject`. */
export async function waitForSubject(app: TestApp, to: string, subject: string): Promise<OutboxEntry> {
  const entries = await waitForMail(app, to, (list) => list.some((e) => e.subject?.endsWith(subject)));
  return entries.find((e) => e.subject?.endsWith(subject))!;
}

/**
 * Registers by email over HTTP and returns the signed-in client, once the verification code the
 * registration mails in the background is in the outbox (so later snapshots do not race it).
 */
export async function registered(app: TestApp, email: string, password = PASSWORD): Promise<Client> {
  const client = new Client(app.base);
  const res = await client.post('/auth/register', { email, password });
  if (res.status !== 201)
    throw new Error(`register ${email}: ${String(res.status)} ${JSON.stringify(res.body)}`);
  if (app.config.smtpUrl === null) await lastCode(app.dataDir, email);
  return client;
}

/** Registers and verifies the email with the code from the outbox. */
export async function verifiedUser(app: TestApp, email: string, password = PASSWORD): Promise<Client> {
  const client = await registered(app, email, password);
  const res = await client.post('/auth/verify-email/check', { code: await lastCode(app.dataDir, email) });
  if (res.status !== 200)
    throw new Error(`verify ${email}: ${String(res.status)} ${JSON.stringify(res.body)}`);
  return client;
}
