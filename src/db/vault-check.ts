import type { Clock } from '../lib/clock.js';
import type { Vault } from '../lib/vault.js';
import type { Db } from './connect.js';

const KEY = 'vault_check';
const CONTEXT = 'vault-check';
const PLAINTEXT = 'hotspot-ctl';

/** The vault key of this data directory is not the one the database's secrets are sealed with. */
export class VaultMismatchError extends Error {
  constructor() {
    super(
      "this data directory's vault.key is not the one the database's secrets were sealed with: " +
        'copy vault.key and secrets.env from the data directory of the first daemon (or of the backup)',
    );
  }
}

/**
 * Devices' RADIUS secrets, grant passwords and signing keys are sealed with the vault key of a
 * data directory. Several daemons sharing one PostgreSQL database must share that key too, and a
 * database restored without its key is unreadable: both are refused at start, with the fix,
 * rather than failing later on every sealed value. The first start leaves a sealed marker in
 * app_meta; every start after opens it.
 */
export async function checkVault(db: Db, vault: Vault, clock: Clock): Promise<void> {
  await db
    .insertInto('app_meta')
    .values({ key: KEY, value: vault.seal(PLAINTEXT, CONTEXT), updated_at: clock.now().toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('app_meta')
    .select('value')
    .where('key', '=', KEY)
    .executeTakeFirstOrThrow();
  let opened: string;
  try {
    opened = vault.open(row.value, CONTEXT);
  } catch {
    throw new VaultMismatchError();
  }
  if (opened !== PLAINTEXT) throw new VaultMismatchError();
}
