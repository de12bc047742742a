import { statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openVault, SecretBox, VAULT_KEY_FILE } from '../../src/lib/vault.js';

t.test('the vault key is created once, mode 0600, and reused', async (t) => {
  const dir = t.testdir();
  const first = openVault(dir);
  const file = path.join(dir, VAULT_KEY_FILE);
  t.equal(statSync(file).mode & 0o777, 0o600);
  const key = readFileSync(file, 'utf8');
  t.equal(Buffer.from(key.trim(), 'base64url').length, 32);
  const sealed = first.seal('s3cret', 'ctx');
  const again = openVault(dir);
  t.equal(readFileSync(file, 'utf8'), key, 'not rewritten');
  t.equal(again.open(sealed, 'ctx'), 's3cret', 'a restart reads what was sealed before');
});

t.test('sealed values are not the plaintext, differ each time and resist tampering', async (t) => {
  const box = new SecretBox(Buffer.alloc(32, 7));
  const a = box.seal('password123', 'grant-password:1');
  const b = box.seal('password123', 'grant-password:1');
  t.not(a, b, 'a fresh IV each time');
  t.notMatch(a, /password123/);
  t.equal(box.open(a, 'grant-password:1'), 'password123');
  t.throws(() => box.open(a, 'grant-password:2'), 'bound to its context');
  const [v, iv, body, tag] = a.split('.') as [string, string, string, string];
  const flipped = Buffer.from(body, 'base64url');
  flipped[0] = (flipped[0] ?? 0) ^ 1;
  t.throws(
    () => box.open([v, iv, flipped.toString('base64url'), tag].join('.'), 'grant-password:1'),
    'tampered',
  );
  t.throws(() => box.open('garbage', 'grant-password:1'), /unknown format/);
  t.throws(() => new SecretBox(Buffer.alloc(31)), RangeError);
  t.throws(() => new SecretBox(Buffer.alloc(32, 8)).open(a, 'grant-password:1'), 'another key');
});
