import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { isEncryptedBackup, openBackup, sealBackup } from '../../src/db/backup-crypto.js';

const PASS = 'correct horse battery staple';

t.test('a sealed backup opens with its passphrase only, and any change to it is refused', (t) => {
  const dir = t.testdir();
  const plain = Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 7)]);
  const sealed = sealBackup(plain, PASS);
  const file = path.join(dir, 'b');
  writeFileSync(file, sealed);
  t.ok(isEncryptedBackup(file));
  t.notOk(sealed.includes('SQLite format 3'));
  t.same(openBackup(file, PASS), plain);
  t.notSame(sealBackup(plain, PASS), sealed, 'a fresh salt and IV each time');

  t.throws(() => openBackup(file, 'correct horse battery stapler'), { code: 'wrongPassphrase' });
  t.throws(() => sealBackup(plain, 'short'), { code: 'shortPassphrase' });

  // A changed parameter in the header is caught by the tag (the header is the additional data).
  const text = sealed.toString('latin1');
  writeFileSync(file, Buffer.from(text.replace('"p":1', '"p":2'), 'latin1'));
  t.throws(() => openBackup(file, PASS), { code: 'wrongPassphrase' });
  // A flipped ciphertext byte, a cut-off tag, a header asking scrypt for gigabytes.
  const flipped = Buffer.from(sealed);
  flipped[flipped.length - 40] = (flipped[flipped.length - 40] ?? 0) ^ 1;
  writeFileSync(file, flipped);
  t.throws(() => openBackup(file, PASS), { code: 'wrongPassphrase' });
  writeFileSync(file, sealed.subarray(0, 100));
  t.throws(() => openBackup(file, PASS));
  writeFileSync(
    file,
    Buffer.from(text.replace('"N":131072', '"N":1048576').replace('"r":8', '"r":32'), 'latin1'),
  );
  t.throws(() => openBackup(file, PASS), { code: 'damaged' });
  writeFileSync(file, Buffer.from(text.replace('"kdf":"scrypt"', '"kdf":"none"'), 'latin1'));
  t.throws(() => openBackup(file, PASS), { code: 'damaged' });

  writeFileSync(file, plain);
  t.notOk(isEncryptedBackup(file), 'a plain backup is not taken for an encrypted one');
  t.notOk(isEncryptedBackup(path.join(dir, 'missing')));
  t.end();
});
