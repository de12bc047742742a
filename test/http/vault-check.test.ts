import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { VAULT_KEY_FILE } from '../../src/lib/vault.js';
import { startTestApp, testConfig } from '../helpers/app.js';

/**
 * A daemon whose vault.key is not the one the database's secrets are sealed with (a second daemon
 * on a shared PostgreSQL that was not given the first one's key, or a database restored without
 * its key) refuses to start and says how to fix it; with the right key it starts.
 */
t.test('a data directory with another vault key is refused at start, with the fix', async (t) => {
  const first = await startTestApp(t);
  await first.app.close();
  const keyFile = path.join(first.dataDir, VAULT_KEY_FILE);
  const original = readFileSync(keyFile, 'utf8');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64url')}\n`);
  await t.rejects(buildApp(testConfig(first.dataDir)), {
    message:
      /vault\.key is not the one the database's secrets were sealed with: copy vault\.key and secrets\.env/,
  });
  writeFileSync(keyFile, original);
  const again = await buildApp(testConfig(first.dataDir));
  await again.close();
  t.pass('the right key starts again');
});
