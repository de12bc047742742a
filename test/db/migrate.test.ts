import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Migrator } from 'kysely';
import t from 'tap';
import { MIGRATIONS, migrateToLatest, migrationState, openDatabase } from '../../src/db/index.js';

t.test('migrations apply in order to an empty database, then there is nothing left to do', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'fresh.db'));
  t.teardown(() => db.destroy());
  t.same(await migrationState(db), { applied: [], pending: Object.keys(MIGRATIONS) });

  const results = await migrateToLatest(db);
  t.same(
    results.map((r) => [r.migrationName, r.status]),
    Object.keys(MIGRATIONS).map((name) => [name, 'Success']),
  );
  t.same(await migrationState(db), { applied: Object.keys(MIGRATIONS), pending: [] });
  t.same(await migrateToLatest(db), [], 'a second run applies nothing');

  const tables = sqlite
    .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name")
    .pluck()
    .all();
  t.ok(tables.includes('app_meta'));
  t.ok(tables.includes('kysely_migration'));
  await db
    .insertInto('app_meta')
    .values({ key: 'k', value: 'v', updated_at: '2026-01-01T00:00:00.000Z' })
    .execute();
  t.same(await db.selectFrom('app_meta').selectAll().execute(), [
    { key: 'k', value: 'v', updated_at: '2026-01-01T00:00:00.000Z' },
  ]);
});

t.test(
  'the connection runs in WAL with foreign keys, a busy timeout and sync left to the driver',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'pragmas.db'));
    t.teardown(() => db.destroy());
    t.equal(sqlite.pragma('journal_mode', { simple: true }), 'wal');
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1);
    t.equal(sqlite.pragma('busy_timeout', { simple: true }), 5000);
    // NORMAL: SQLite does not fsync at commit; the driver syncs the WAL before acknowledging
    // (test/db/wal-sync.test.ts).
    t.equal(sqlite.pragma('synchronous', { simple: true }), 1, 'NORMAL');
  },
);

t.test('transactions take the write lock up front and roll back on error', async (t) => {
  const file = path.join(t.testdir(), 'tx.db');
  const { db } = openDatabase(file);
  t.teardown(() => db.destroy());
  await migrateToLatest(db);
  await t.rejects(
    db.transaction().execute(async (tx) => {
      await tx.insertInto('app_meta').values({ key: 'a', value: '1', updated_at: 'x' }).execute();
      throw new Error('abort');
    }),
  );
  t.same(await db.selectFrom('app_meta').selectAll().execute(), [], 'rolled back');
  // BEGIN IMMEDIATE: before the transaction has run a statement, another connection already
  // cannot write (with a deferred BEGIN it could, and the transaction would fail later instead).
  const other = new Database(file, { timeout: 0 });
  t.teardown(() => other.close());
  await db.transaction().execute(async () => {
    t.throws(() => other.prepare("insert into app_meta values ('c', '3', 'x')").run(), {
      code: 'SQLITE_BUSY',
    });
    await Promise.resolve();
  });
  other.prepare("insert into app_meta values ('c', '3', 'x')").run();
  t.equal((await db.selectFrom('app_meta').select('key').execute()).length, 1, 'writable again after commit');
});

/** A migrator over the migrations named before `first` (the database as an older release left it). */
const migratorBefore = (db: Parameters<typeof migrateToLatest>[0], first: string) =>
  new Migrator({
    db,
    provider: {
      getMigrations: () =>
        Promise.resolve(Object.fromEntries(Object.entries(MIGRATIONS).filter(([name]) => name < first))),
    },
  });

/** A router row as 0003..0014 shaped `devices` (15 columns). */
const insertLobbyRouter = (sqlite: Database.Database, at: string) =>
  sqlite
    .prepare(
      `insert into devices values ('d1', 'Lobby AP', 'MikroTik hAP ax2', 'AA:BB:CC:DD:EE:01', '10.1.0.0/24',
       'http://10.1.0.10/portal', 'lobby-01', '10.1.0.1', 3799, 'sealed-radius', 'sealed-uam', 'pap', 0, ?, ?)`,
    )
    .run(at, at);

t.test(
  '0015 makes a device secret optional and keeps every device and session row and the schema',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'upgrade.db'));
    t.teardown(() => db.destroy());
    // The database as the release before 0015 left it, with a router and its sessions.
    const upTo0015 = migratorBefore(db, '0016');
    t.error((await migratorBefore(db, '0015').migrateToLatest()).error);
    const at = '2026-01-15T09:00:00.000Z';
    insertLobbyRouter(sqlite, at);
    for (const id of ['s1', 's2'])
      sqlite
        .prepare(
          `insert into radius_sessions values (?, 'd1', ?, 'guest', null, '10.1.0.5', '11:22:33:44:55:66',
         4294967301, 7, 60, ?, ?, null, null)`,
        )
        .run(id, `acct-${id}`, at, at);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const schema = () => ({
      columns: read(`select name, type, "notnull", dflt_value, pk from pragma_table_info('devices')`),
      indexes: read(`select name, "unique", origin, partial from pragma_index_list('devices') order by name`),
      references: read(
        `select "table", "from", "to", on_delete from pragma_foreign_key_list('radius_sessions')`,
      ),
    });
    const rows = () => ({
      devices: read('select * from devices'),
      sessions: read('select * from radius_sessions'),
    });
    const old = { schema: schema(), rows: rows() };
    t.match(old.schema.columns, [{ name: 'id' }]);
    t.equal(old.schema.indexes.length, 3, 'primary key, mac_address and radius_nas_id');

    t.same(
      ((await upTo0015.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
      [['0015_device_global_secret', 'Success']],
    );
    t.same(rows(), old.rows, 'every device and session row as it was (none cascaded away)');
    t.same(
      schema(),
      {
        ...old.schema,
        columns: old.schema.columns.map((c) => (c.name === 'radius_secret_enc' ? { ...c, notnull: 0 } : c)),
      },
      'only radius_secret_enc changed: it may be NULL now',
    );
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1, 'foreign keys are on again');
    t.same(read('pragma foreign_key_check'), []);

    sqlite
      .prepare(
        `insert into devices values ('d2', 'Bar AP', 'CoovaChilli', 'AA:BB:CC:DD:EE:02', '10.2.0.0/24',
       'http://10.2.0.10/portal', 'bar-01', '10.2.0.1', 3799, null, null, 'chap', 1, ?, ?)`,
      )
      .run(at, at);
    t.throws(
      () =>
        sqlite
          .prepare(
            `insert into devices values ('d3', 'X', 'X', 'AA:BB:CC:DD:EE:03', '10.3.0.0/24', 'http://x/',
           'bar-01', '10.3.0.1', 3799, null, null, 'chap', 1, ?, ?)`,
          )
          .run(at, at),
      { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      'radius_nas_id is still unique',
    );
    t.throws(
      () =>
        sqlite
          .prepare(
            `insert into radius_sessions values ('s9', 'nope', 'a', 'g', null, null, null, 0, 0, 0, ?, ?, null, null)`,
          )
          .run(at, at),
      { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
      'sessions still reference devices',
    );
    sqlite.prepare(`delete from devices where id = 'd1'`).run();
    t.same(read('select id from radius_sessions'), [], 'and still cascade when a device goes');

    t.match((await upTo0015.migrateDown()).error, {
      message: 'cannot undo 0015: some devices use RADIUS_SECRET; rotate-secret gives them their own first',
    });
    sqlite.prepare(`update devices set radius_secret_enc = 'sealed' where id = 'd2'`).run();
    t.error((await upTo0015.migrateDown()).error, 'undone once every device has its own secret');
    t.same(schema().columns, old.schema.columns, 'NOT NULL again');
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1);
  },
);

t.test(
  '0016 lets closed sessions share an Acct-Session-Id, keeps every row, and undoes cleanly',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'reuse.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0016').migrateToLatest()).error);
    const at = '2026-01-15T09:00:00.000Z';
    insertLobbyRouter(sqlite, at);
    const insert = sqlite.prepare(
      `insert into radius_sessions values (?, 'd1', ?, 'guest', null, '10.1.0.5', '11:22:33:44:55:66',
     4294967301, 7, 60, ?, ?, ?, null)`,
    );
    insert.run('s1', 'acct-1', at, at, at);
    insert.run('s2', 'acct-2', at, at, null);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const columns = () =>
      read(`select name, type, "notnull", dflt_value, pk from pragma_table_info('radius_sessions')`);
    const indexes = () =>
      read(`select name, "unique", partial from pragma_index_list('radius_sessions') order by name`);
    const old = {
      columns: columns(),
      indexes: indexes(),
      rows: read('select * from radius_sessions order by id'),
    };
    t.throws(
      () => insert.run('s3', 'acct-1', at, at, at),
      { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      'before: unique forever',
    );

    const upTo0016 = migratorBefore(db, '0017');
    t.same(
      ((await upTo0016.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
      [['0016_acct_session_reuse', 'Success']],
    );
    t.same(read('select * from radius_sessions order by id'), old.rows, 'every session row as it was');
    t.same(columns(), old.columns, 'the same columns');
    t.same(read('pragma foreign_key_check'), []);
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1);
    insert.run('s3', 'acct-1', at, at, null);
    t.pass('a new open session may reuse the id of a closed one');
    t.throws(
      () => insert.run('s4', 'acct-1', at, at, null),
      { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      'but two open sessions of one router may not share it',
    );
    insert.run('s4', 'acct-2', at, at, at);
    t.pass('nor does a closed one stop another from being open');

    t.match((await upTo0016.migrateDown()).error, {
      message: 'cannot undo 0016: some routers reused an Acct-Session-Id; those sessions would collide',
    });
    sqlite.prepare(`delete from radius_sessions where id in ('s3', 's4')`).run();
    t.error((await upTo0016.migrateDown()).error, 'undone once no id is shared');
    t.same(indexes(), old.indexes, 'the indexes of 0010 again');
    t.same(read('select * from radius_sessions order by id'), old.rows);
    t.throws(() => insert.run('s3', 'acct-1', at, at, null), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1);
  },
);

t.test('0017 adds speed limits and router health as empty columns, and undoes cleanly', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'speed.db'));
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0017').migrateToLatest()).error);
  const at = '2026-01-15T09:00:00.000Z';
  insertLobbyRouter(sqlite, at);
  sqlite
    .prepare(`insert into plans values ('p1', '1 hour', '', 1000, 3600, null, 1, 0, 1, ?, ?)`)
    .run(at, at);
  const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
  const before = { plans: read('select * from plans'), devices: read('select * from devices') };
  const columnsOf = (table: string) =>
    read(`select name from pragma_table_info('${table}')`).map((c) => c.name);
  const old = Object.fromEntries(['plans', 'invoices', 'grants', 'devices'].map((n) => [n, columnsOf(n)]));

  const upTo0017 = migratorBefore(db, '0018');
  t.same(
    ((await upTo0017.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0017_router_handoff', 'Success']],
  );
  for (const table of ['plans', 'invoices', 'grants'])
    t.same(columnsOf(table), [...(old[table] ?? []), 'download_kbps', 'upload_kbps'], table);
  t.same(columnsOf('devices'), [...(old.devices ?? []), 'last_seen_at', 'gateway_ip']);
  t.same(
    read('select * from plans'),
    before.plans.map((p) => ({ ...p, download_kbps: null, upload_kbps: null })),
    'no speed limit on the plans sold so far',
  );
  t.same(
    read('select * from devices'),
    before.devices.map((d) => ({ ...d, last_seen_at: null, gateway_ip: null })),
    'routers never seen yet',
  );

  t.error((await upTo0017.migrateDown()).error);
  for (const table of ['plans', 'invoices', 'grants', 'devices']) t.same(columnsOf(table), old[table], table);
  t.same(read('select * from plans'), before.plans);
});

t.test('0018 adds the shared-state tables and the sealed signing key, and undoes cleanly', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'shared.db'));
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0018').migrateToLatest()).error);
  const upTo0018 = migratorBefore(db, '0019');
  const tables = () =>
    sqlite
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .pluck()
      .all() as string[];
  const keyColumns = () =>
    (sqlite.prepare(`select name from pragma_table_info('signing_keys')`).pluck().all() as string[]).join(
      ',',
    );
  const oldTables = tables();
  const oldKeyColumns = keyColumns();
  t.same(
    ((await upTo0018.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0018_shared_state', 'Success']],
  );
  t.same(tables(), [...oldTables, 'job_runs', 'rate_limits'].sort());
  t.equal(keyColumns(), `${oldKeyColumns},private_key_enc`);
  t.same(
    sqlite.prepare("select name from sqlite_master where type = 'trigger'").all(),
    [],
    'no triggers on SQLite: data_version tells the daemon of other writers',
  );
  t.error((await upTo0018.migrateDown()).error);
  t.same(tables(), oldTables);
  t.equal(keyColumns(), oldKeyColumns);
});

t.test('0020 adds the remote-router columns of devices as empty ones, and undoes cleanly', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'tunnel.db'));
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0020').migrateToLatest()).error);
  const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
  const at = '2026-01-15T09:00:00.000Z';
  sqlite
    .prepare(
      `insert into devices values ('d1', 'Lobby AP', 'MikroTik hAP ax2', 'AA:BB:CC:DD:EE:01', '10.1.0.0/24',
       'http://10.1.0.10/portal', 'lobby-01', '10.1.0.1', 3799, 'sealed-radius', null, 'chap', 1, ?, ?, ?, null, 'default')`,
    )
    .run(at, at, at);
  const columns = () => read(`select name from pragma_table_info('devices')`).map((c) => c.name);
  const before = { columns: columns(), rows: read('select * from devices') };
  const upTo0020 = migratorBefore(db, '0021');
  t.same(
    ((await upTo0020.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0020_device_tunnel', 'Success']],
  );
  t.same(columns(), [...before.columns, 'tunnel_address', 'tunnel_public_key', 'radsec_cert_sha256']);
  t.same(
    read('select * from devices'),
    before.rows.map((d) => ({
      ...d,
      tunnel_address: null,
      tunnel_public_key: null,
      radsec_cert_sha256: null,
    })),
    'no router is remote yet',
  );
  t.error((await upTo0020.migrateDown()).error);
  t.same(columns(), before.columns);
  t.same(read('select * from devices'), before.rows);
});

t.test("0028 adds the sites' own payment accounts as empty ones, and undoes cleanly", async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'site-accounts.db'));
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0028').migrateToLatest()).error);
  const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
  const columns = () => read(`select name from pragma_table_info('sites')`).map((c) => c.name);
  const before = { columns: columns(), rows: read('select * from sites') };
  const upTo0028 = migratorBefore(db, '0029');
  t.same(
    ((await upTo0028.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0028_site_payment_accounts', 'Success']],
  );
  t.same(columns(), [...before.columns, 'selcom_account_enc', 'azampay_account_enc']);
  t.same(
    read('select * from sites'),
    before.rows.map((s) => ({ ...s, selcom_account_enc: null, azampay_account_enc: null })),
    "every site uses the box's accounts",
  );
  t.error((await upTo0028.migrateDown()).error);
  t.same(columns(), before.columns);
  t.same(read('select * from sites'), before.rows);
});

t.test(
  '0021 marks every earlier sale as mobile money, adds the audit trail, and undoes cleanly',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'sales.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0021').migrateToLatest()).error);
    const at = '2026-01-15T09:00:00.000Z';
    sqlite
      .prepare(
        `insert into plans values ('p1', '1 hour', '', 1000, 3600, null, 1, 0, 1, ?, ?, null, null, 'default')`,
      )
      .run(at, at);
    sqlite
      .prepare(
        `insert into invoices (id, number, sequence, plan_id, phone, amount_tzs, duration_seconds, status,
       purchase_key_hash, provider, provider_reference, created_at, updated_at, paid_at)
       values ('i1', 'HS-000001-ABCDEFGH', 1, 'p1', '+255712345678', 1000, 3600, 'paid', 'hash', 'sandbox', 'ref',
       ?, ?, ?)`,
      )
      .run(at, at, at);
    sqlite
      .prepare(
        `insert into payments values ('pay1', 'i1', 'sandbox', 'ref', 1000, '+255712345678', 'evt-1', ?)`,
      )
      .run(at);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const columnsOf = (table: string) =>
      read(`select name from pragma_table_info('${table}')`).map((c) => c.name);
    const old = { invoices: columnsOf('invoices'), payments: columnsOf('payments') };
    const rows = { invoices: read('select * from invoices'), payments: read('select * from payments') };

    const all = new Migrator({ db, provider: { getMigrations: () => Promise.resolve({ ...MIGRATIONS }) } });
    t.same(
      ((await migratorBefore(db, '0022').migrateToLatest()).results ?? []).map((r) => [
        r.migrationName,
        r.status,
      ]),
      [['0021_sales_channels', 'Success']],
    );
    t.same(columnsOf('invoices'), [...old.invoices, 'channel', 'sold_by']);
    t.same(columnsOf('payments'), [...old.payments, 'channel']);
    t.same(
      read('select * from invoices'),
      rows.invoices.map((i) => ({ ...i, channel: 'mobile_money', sold_by: null })),
      'an earlier sale was a mobile-money sale from the portal',
    );
    t.same(
      read('select * from payments'),
      rows.payments.map((p) => ({ ...p, channel: 'mobile_money' })),
    );
    t.same(read('select * from wifi_audit'), [], 'the audit trail starts empty');
    t.throws(
      () =>
        sqlite
          .prepare(
            `insert into wifi_audit (id, created_at, action, target_type, target_id) values ('a', ?, 'x', 'grant', 'g')`,
          )
          .run(at),
      { code: 'SQLITE_CONSTRAINT_NOTNULL' },
      'every entry names who acted',
    );

    t.error((await all.migrateDown()).error);
    t.same(columnsOf('invoices'), old.invoices);
    t.same(columnsOf('payments'), old.payments);
    t.same(read('select * from invoices'), rows.invoices);
    t.notOk(read(`select name from sqlite_master where name = 'wifi_audit'`).length);
  },
);

t.test(
  '0019 puts every router, plan and invoice in the default site, with foreign keys on, and undoes cleanly',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'sites.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0019').migrateToLatest()).error);
    t.equal(sqlite.pragma('foreign_keys', { simple: true }), 1, 'foreign keys on while it runs');
    const at = '2026-01-15T09:00:00.000Z';
    sqlite
      .prepare(
        `insert into devices values ('d1', 'Lobby AP', 'MikroTik hAP ax2', 'AA:BB:CC:DD:EE:01', '10.1.0.0/24',
         'http://10.1.0.10/portal', 'lobby-01', '10.1.0.1', 3799, null, null, 'pap', 0, ?, ?, ?, null)`,
      )
      .run(at, at, at);
    sqlite
      .prepare(`insert into plans values ('p1', '1 hour', '', 1000, 3600, null, 1, 0, 1, ?, ?, null, null)`)
      .run(at, at);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const columnsOf = (table: string) =>
      read(`select name from pragma_table_info('${table}')`).map((c) => c.name);
    const old = Object.fromEntries(['plans', 'invoices', 'devices'].map((n) => [n, columnsOf(n)]));
    const before = { plans: read('select * from plans'), devices: read('select * from devices') };

    const upTo0019 = migratorBefore(db, '0020');
    t.same(
      ((await upTo0019.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
      [['0019_sites', 'Success']],
    );
    t.match(read('select * from sites'), [
      { id: 'default', slug: 'default', name: 'Default', display_name: null, time_zone: null },
    ]);
    for (const table of ['plans', 'invoices', 'devices'])
      t.same(columnsOf(table), [...(old[table] ?? []), 'site_id'], table);
    t.same(
      read('select * from plans'),
      before.plans.map((p) => ({ ...p, site_id: 'default' })),
      'the plans there are belong to the default site',
    );
    t.same(
      read('select * from devices'),
      before.devices.map((d) => ({ ...d, site_id: 'default' })),
      'so do the routers',
    );
    t.same(read('pragma foreign_key_check'), []);
    t.throws(
      () => sqlite.prepare(`insert into staff_sites values ('nobody', 'default', ?)`).run(at),
      { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
      'a staff scope names a real account',
    );

    t.error((await upTo0019.migrateDown()).error);
    for (const table of ['plans', 'invoices', 'devices']) t.same(columnsOf(table), old[table], table);
    t.same(read('select * from plans'), before.plans);
    t.notOk(read(`select name from sqlite_master where name in ('sites', 'staff_sites')`).length);
  },
);

t.test(
  '0026 indexes open sessions without updated_at, so an interim changes no indexed column',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'hot.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0026').migrateToLatest()).error);
    const indexes = () =>
      (
        sqlite
          .prepare(
            `select name, sql from sqlite_master where type = 'index' and tbl_name = 'radius_sessions' and sql is not null order by name`,
          )
          .all() as { name: string; sql: string }[]
      ).map((i) => i.name);
    const before = indexes();
    t.ok(before.includes('radius_sessions_open'));
    const upTo0026 = migratorBefore(db, '0027');
    t.same(
      ((await upTo0026.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
      [['0026_session_updates_in_place', 'Success']],
    );
    t.same(
      indexes(),
      [...before.filter((n) => n !== 'radius_sessions_open'), 'radius_sessions_stopped'].sort(),
    );
    const columns = sqlite
      .prepare(
        `select distinct ii.name from sqlite_master m, pragma_index_info(m.name) ii
              where m.type = 'index' and m.tbl_name = 'radius_sessions'`,
      )
      .all() as { name: string }[];
    t.notOk(
      columns.some((c) => ['updated_at', 'input_octets', 'output_octets', 'session_time'].includes(c.name)),
      'no index names a column every interim changes',
    );
    t.match(
      sqlite
        .prepare(
          `explain query plan select id from radius_sessions where stopped_at is null and updated_at < '2026'`,
        )
        .all(),
      [{ detail: /USING INDEX radius_sessions_(stopped|device_acct_open)/ }],
      'the stale-session job still finds the open sessions by index',
    );
    t.error((await upTo0026.migrateDown()).error);
    t.same(indexes(), before);
  },
);

t.test(
  '0023 adds the purchase language and the grant reminder columns as empty ones, and undoes cleanly',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'reminders.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0023').migrateToLatest()).error);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const at = '2026-01-15T09:00:00.000Z';
    sqlite
      .prepare(
        `insert into plans (id, name, description, price_tzs, duration_seconds, active, sort_order, created_at, updated_at)
       values ('p1', '1 hour', '', 1000, 3600, 1, 0, ?, ?)`,
      )
      .run(at, at);
    sqlite
      .prepare(
        `insert into invoices (id, number, sequence, plan_id, phone, amount_tzs, duration_seconds, status,
         purchase_key_hash, provider, created_at, updated_at, paid_at)
       values ('i1', 'HS-000001-AAAAAAAA', 1, 'p1', '+255712345678', 1000, 3600, 'paid', 'h', 'sandbox', ?, ?, ?)`,
      )
      .run(at, at, at);
    sqlite
      .prepare(
        `insert into grants (id, invoice_id, username, password_enc, issued_at, expires_at)
       values ('g1', 'i1', 'abcd2345', 'sealed', ?, '2026-01-15T10:00:00.000Z')`,
      )
      .run(at);
    const columnsOf = (table: string) =>
      read(`select name from pragma_table_info('${table}')`).map((c) => c.name);
    const before = {
      invoices: { columns: columnsOf('invoices'), rows: read('select * from invoices') },
      grants: { columns: columnsOf('grants'), rows: read('select * from grants') },
    };
    const upTo0023 = migratorBefore(db, '0024');
    t.same(
      ((await upTo0023.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
      [['0023_grant_reminders', 'Success']],
    );
    t.same(columnsOf('invoices'), [...before.invoices.columns, 'language']);
    t.same(columnsOf('grants'), [...before.grants.columns, 'end_reminder_at', 'data_reminder_at']);
    t.same(
      read('select * from invoices'),
      before.invoices.rows.map((i) => ({ ...i, language: null })),
      'the language of earlier purchases is not known',
    );
    t.same(
      read('select * from grants'),
      before.grants.rows.map((g) => ({ ...g, end_reminder_at: null, data_reminder_at: null })),
      'no reminder sent yet',
    );
    t.error((await upTo0023.migrateDown()).error);
    t.same(columnsOf('invoices'), before.invoices.columns);
    t.same(columnsOf('grants'), before.grants.columns);
    t.same(read('select * from invoices'), before.invoices.rows);
    t.same(read('select * from grants'), before.grants.rows);
  },
);

t.test('0029 drops the sealed copies of voucher codes, and undoes with the column empty', async (t) => {
  const file = path.join(t.testdir(), 'vouchers.db');
  const { db, sqlite } = openDatabase(file);
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0029').migrateToLatest()).error);
  const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
  const at = '2026-01-15T09:00:00.000Z';
  sqlite
    .prepare(
      `insert into plans (id, name, description, price_tzs, duration_seconds, active, sort_order, created_at, updated_at)
       values ('p1', '1 hour', '', 1000, 3600, 1, 0, ?, ?)`,
    )
    .run(at, at);
  sqlite
    .prepare(
      `insert into voucher_batches (id, plan_id, site_id, count, prefix, code_length, created_by, created_at)
       values ('b1', 'p1', 'default', 2, '', 10, 'cli:root', ?)`,
    )
    .run(at);
  // Forty codes, each added on its own (pages fill and split as on a box in use), one used.
  const sealed = (i: number) => `v1.SEALED${String(i).padStart(4, '0')}${'x'.repeat(40)}`;
  const insert = sqlite.prepare(
    `insert into vouchers (id, batch_id, code_hash, code_enc, last3, status) values (?, 'b1', ?, ?, 'ABC', ?)`,
  );
  for (let i = 0; i < 40; i++)
    insert.run(`v${String(i)}`, `h${String(i)}`, i === 0 ? null : sealed(i), i === 0 ? 'redeemed' : 'unused');
  const copies = () => readFileSync(file).toString('latin1').split('v1.SEALED').length - 1;
  const columns = () => read(`select name from pragma_table_info('vouchers')`).map((c) => c.name);
  const before = { columns: columns(), rows: read('select * from vouchers') };
  t.ok(before.columns.includes('code_enc'));
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  t.equal(copies(), 39, 'the sealed copies in the database file, as on a box in use');

  const upTo0029 = migratorBefore(db, '0030');
  t.same(
    ((await upTo0029.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0029_voucher_codes_hashed_only', 'Success']],
  );
  t.same(
    columns(),
    before.columns.filter((c) => c !== 'code_enc'),
  );
  t.same(
    read('select * from vouchers'),
    before.rows.map(({ code_enc: _dropped, ...rest }) => rest),
    'every other value kept',
  );
  t.same(read('pragma foreign_key_check'), []);

  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  t.equal(copies(), 0, 'nor anywhere in the file: the space they took is zeroed');
  t.equal(sqlite.pragma('secure_delete', { simple: true }), 0, 'secure_delete back as it was');

  t.error((await upTo0029.migrateDown()).error);
  t.same(columns(), [...before.columns.filter((c) => c !== 'code_enc'), 'code_enc'], 'back, at the end');
  t.same(
    read('select * from vouchers'),
    before.rows.map((r) => ({ ...r, code_enc: null })),
    'the sealed copies do not come back',
  );
});

t.test(
  '0033 lets an invoice have one sale and one refund payment, keeps every payment, and undoes cleanly',
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'refunds.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0033').migrateToLatest()).error);
    const at = '2026-01-15T09:00:00.000Z';
    sqlite
      .prepare(
        `insert into plans (id, name, description, price_tzs, duration_seconds, active, sort_order, created_at, updated_at)
         values ('p1', '1 hour', '', 1000, 3600, 1, 0, ?, ?)`,
      )
      .run(at, at);
    for (const i of [1, 2])
      sqlite
        .prepare(
          `insert into invoices (id, number, sequence, plan_id, phone, amount_tzs, duration_seconds, status,
           purchase_key_hash, provider, created_at, updated_at, paid_at, channel)
           values (?, ?, ?, 'p1', '+255712345678', 1000, 3600, 'paid', 'h', 'counter', ?, ?, ?, 'cash')`,
        )
        .run(`i${String(i)}`, `HS-00000${String(i)}-AAAAAAAA`, i, at, at, at);
    sqlite
      .prepare(
        `insert into payments (id, invoice_id, provider, provider_reference, amount_tzs, phone, event_id, paid_at, channel)
         values ('pay1', 'i1', 'counter', null, 1000, null, 'counter:i1', ?, 'cash')`,
      )
      .run(at);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const columnsOf = (table: string) =>
      read(`select name from pragma_table_info('${table}')`).map((c) => c.name);
    const before = { payments: read('select * from payments'), columns: columnsOf('payments') };
    const secondSale = sqlite.prepare(
      `insert into payments (id, invoice_id, provider, amount_tzs, event_id, paid_at) values ('pay2', 'i1', 'x', 5, 'e2', ?)`,
    );
    t.throws(
      () => secondSale.run(at),
      { code: 'SQLITE_CONSTRAINT_UNIQUE' },
      'one payment per invoice before',
    );

    const upTo0033 = migratorBefore(db, '0034');
    t.error((await upTo0033.migrateToLatest()).error);
    t.same(columnsOf('payments'), [...before.columns, 'kind']);
    t.ok(columnsOf('invoices').includes('refunded_at'));
    t.same(
      read('select * from payments'),
      before.payments.map((p) => ({ ...p, kind: 'sale' })),
      'every payment kept, as a sale',
    );
    t.same(read('select refunded_at from invoices'), [{ refunded_at: null }, { refunded_at: null }]);
    t.throws(() => secondSale.run(at), { code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'still one sale per invoice');
    const refund = sqlite.prepare(
      `insert into payments (id, invoice_id, provider, amount_tzs, event_id, paid_at, kind)
       values (?, 'i1', 'by_hand', -1000, 'refund:i1', ?, 'refund')`,
    );
    refund.run('r1', at);
    t.throws(() => refund.run('r2', at), { code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'and one refund');
    t.throws(
      () =>
        sqlite
          .prepare(
            `insert into payments (id, invoice_id, provider, amount_tzs, event_id, paid_at) values ('x', 'nope', 'x', 1, 'e', ?)`,
          )
          .run(at),
      { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' },
      'the reference to invoices is kept',
    );
    t.same(read('pragma foreign_key_check'), []);

    const refused = await upTo0033.migrateDown();
    t.match(refused.error, { message: /cannot undo 0033: refunds are recorded/ });
    sqlite.prepare(`delete from payments where kind = 'refund'`).run();
    t.error((await upTo0033.migrateDown()).error);
    t.same(columnsOf('payments'), before.columns);
    t.notOk(columnsOf('invoices').includes('refunded_at'));
    t.same(read('select * from payments'), before.payments);
    t.throws(() => secondSale.run(at), { code: 'SQLITE_CONSTRAINT_UNIQUE' }, 'one payment per invoice again');
  },
);

t.test('0035 gives routers a down_since, null for every router, and undoes cleanly', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'router-down.db'));
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0035').migrateToLatest()).error);
  const at = '2026-01-15T09:00:00.000Z';
  sqlite
    .prepare(
      `insert into devices (id, name, model, mac_address, local_network, uam_server, radius_nas_id,
       radius_client_ip, coa_port, uam_auth, require_message_authenticator, created_at, updated_at,
       last_seen_at, site_id)
       values ('d1', 'Lobby AP', 'hAP', 'AA:BB:CC:DD:EE:01', '10.1.0.0/24', 'http://10.1.0.10/portal',
       'lobby-01', '10.1.0.1', 3799, 'chap', 1, ?, ?, ?, 'default')`,
    )
    .run(at, at, at);
  const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
  const columns = () => read(`select name from pragma_table_info('devices')`).map((c) => c.name);
  const before = { columns: columns(), rows: read('select * from devices') };

  const upTo0035 = migratorBefore(db, '0036');
  t.same(
    ((await upTo0035.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0035_router_down', 'Success']],
  );
  t.same(columns(), [...before.columns, 'down_since']);
  t.same(
    read('select * from devices'),
    before.rows.map((r) => ({ ...r, down_since: null })),
    'no outage reported yet',
  );

  t.error((await upTo0035.migrateDown()).error);
  t.same(columns(), before.columns);
  t.same(read('select * from devices'), before.rows);
});

t.test(
  "0040 gives each sale the router of its grant's first session, none without one, and undoes cleanly",
  async (t) => {
    const { db, sqlite } = openDatabase(path.join(t.testdir(), 'first-router.db'));
    t.teardown(() => db.destroy());
    t.error((await migratorBefore(db, '0040').migrateToLatest()).error);
    const at = '2026-01-15T09:00:00.000Z';
    for (const [id, nasId, n] of [
      ['d1', 'lobby-01', 1],
      ['d2', 'bar-01', 2],
    ] as const)
      sqlite
        .prepare(
          `insert into devices (id, name, model, mac_address, local_network, uam_server, radius_nas_id,
           radius_client_ip, coa_port, uam_auth, require_message_authenticator, created_at, updated_at, site_id)
           values (?, ?, 'hAP', ?, ?, 'http://10.1.0.10/portal', ?, ?, 3799, 'chap', 1, ?, ?, 'default')`,
        )
        .run(
          id,
          nasId,
          `AA:BB:CC:DD:EE:0${String(n)}`,
          `10.${String(n)}.0.0/24`,
          nasId,
          `10.${String(n)}.0.1`,
          at,
          at,
        );
    sqlite
      .prepare(
        `insert into plans (id, name, description, price_tzs, duration_seconds, active, sort_order, created_at, updated_at)
         values ('p1', '1 hour', '', 1000, 3600, 1, 0, ?, ?)`,
      )
      .run(at, at);
    // i1: sessions on d2 then d1 (d2 first by start); i2: a tie on start, the smaller id (d1) first;
    // i3: a grant never online; i4: no grant.
    for (const i of [1, 2, 3, 4])
      sqlite
        .prepare(
          `insert into invoices (id, number, sequence, plan_id, phone, amount_tzs, duration_seconds, status,
           purchase_key_hash, provider, created_at, updated_at, paid_at, channel)
           values (?, ?, ?, 'p1', '+255712345678', 1000, 3600, 'paid', ?, 'counter', ?, ?, ?, 'cash')`,
        )
        .run(`i${String(i)}`, `HS-00000${String(i)}-AAAAAAAA`, i, `h${String(i)}`, at, at, at);
    for (const i of [1, 2, 3])
      sqlite
        .prepare(
          `insert into grants (id, invoice_id, username, password_enc, issued_at, expires_at)
           values (?, ?, ?, 'sealed', ?, '2026-01-15T10:00:00.000Z')`,
        )
        .run(`g${String(i)}`, `i${String(i)}`, `user000${String(i)}`, at);
    const session = sqlite.prepare(
      `insert into radius_sessions (id, device_id, acct_session_id, username, grant_id, input_octets,
       output_octets, session_time, started_at, updated_at)
       values (?, ?, ?, 'guest', ?, 0, 0, 0, ?, ?)`,
    );
    for (const [id, device, grant, started] of [
      ['s1', 'd1', 'g1', '2026-01-15T09:20:00.000Z'],
      ['s2', 'd2', 'g1', '2026-01-15T09:10:00.000Z'],
      ['s4', 'd2', 'g2', '2026-01-15T09:30:00.000Z'],
      ['s3', 'd1', 'g2', '2026-01-15T09:30:00.000Z'],
    ] as const)
      session.run(id, device, `acct-${id}`, grant, started, started);
    const read = (q: string) => sqlite.prepare(q).all() as Record<string, unknown>[];
    const columns = () => read(`select name from pragma_table_info('invoices')`).map((c) => c.name);
    const indexColumns = () =>
      read(`select name from pragma_index_info('invoices_id_report')`).map((c) => c.name);
    const before = { columns: columns(), rows: read('select * from invoices order by id') };

    const upTo0040 = migratorBefore(db, '0041');
    t.same(
      ((await upTo0040.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
      [['0040_first_router', 'Success']],
    );
    t.same(columns(), [...before.columns, 'first_device_id']);
    t.same(
      read('select id, first_device_id from invoices order by id'),
      [
        { id: 'i1', first_device_id: 'd2' },
        { id: 'i2', first_device_id: 'd1' },
        { id: 'i3', first_device_id: null },
        { id: 'i4', first_device_id: null },
      ],
      'the router of the first session by start, then id; none without a session',
    );
    t.same(
      indexColumns(),
      ['id', 'site_id', 'plan_id', 'phone', 'first_device_id'],
      'the report reads it from the index',
    );

    t.error((await upTo0040.migrateDown()).error);
    t.same(columns(), before.columns);
    t.same(read('select * from invoices order by id'), before.rows);
    t.same(indexColumns(), ['id', 'site_id', 'plan_id', 'phone']);
  },
);

t.test('0045 makes the invoices report index carry sold_by, and undoes cleanly', async (t) => {
  const { db, sqlite } = openDatabase(path.join(t.testdir(), 'seller.db'));
  t.teardown(() => db.destroy());
  t.error((await migratorBefore(db, '0045').migrateToLatest()).error);
  const indexColumns = () =>
    (
      sqlite.prepare(`select name from pragma_index_info('invoices_id_report')`).all() as { name: string }[]
    ).map((c) => c.name);
  const before = ['id', 'site_id', 'plan_id', 'phone', 'first_device_id'];
  t.same(indexColumns(), before);
  const upTo0045 = migratorBefore(db, '0046');
  t.same(
    ((await upTo0045.migrateToLatest()).results ?? []).map((r) => [r.migrationName, r.status]),
    [['0045_seller_report', 'Success']],
  );
  t.same(indexColumns(), [...before, 'sold_by'], 'revenue by seller reads it from the index');
  t.error((await upTo0045.migrateDown()).error);
  t.same(indexColumns(), before);
});
