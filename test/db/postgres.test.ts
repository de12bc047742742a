import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { sql } from 'kysely';
import t, { type Test } from 'tap';
import {
  GroupCommit,
  MIGRATIONS,
  migrateToLatest,
  migrationState,
  openStore,
  type Store,
} from '../../src/db/index.js';
import { down as down0015 } from '../../migrations/0015_device_global_secret.js';
import { down as down0016, up as up0016 } from '../../migrations/0016_acct_session_reuse.js';
import { down as down0029, up as up0029 } from '../../migrations/0029_voucher_codes_hashed_only.js';
import { SqlRateLimitStore } from '../../src/http/rate-limit.sql.js';
import { onPostgres, storeEnv } from '../helpers/store.js';

/**
 * The PostgreSQL store itself (DESIGN.md §4.9): migrations, types, the write lock, the change feed
 * and job locks, with two stores on one database standing for two daemons. Runs in the suite's
 * PostgreSQL pass (scripts/test); the flow tests cover the rest on both stores.
 */
if (!onPostgres) {
  t.pass('PostgreSQL only: runs in the PostgreSQL pass of npm test');
} else {
  /** Opens the store of `dir` (its own schema), migrated; closed at the end of `test`. */
  const open = async (test: Test, dir: string, migrate = true): Promise<Store> => {
    const store = await openStore(
      { dataDir: dir, databaseUrl: storeEnv(dir).DATABASE_URL ?? null },
      { now: () => new Date() },
    );
    test.teardown(() => store.close());
    if (migrate) await migrateToLatest(store.db);
    return store;
  };

  t.test(
    'every migration applies to an empty schema, once, and 0015/0016/0029 go down and up again',
    async (t) => {
      const dir = t.testdir();
      const store = await open(t, dir, false);
      t.equal(store.kind, 'postgres');
      t.same(await migrationState(store.db), { applied: [], pending: Object.keys(MIGRATIONS) });
      const results = await migrateToLatest(store.db);
      t.same(
        results.map((r) => r.status),
        Object.keys(MIGRATIONS).map(() => 'Success'),
      );
      t.same(await migrateToLatest(store.db), [], 'a second run applies nothing');

      // 0016 on PostgreSQL: closed sessions may share an Acct-Session-Id, open ones may not.
      const now = '2026-11-25T10:00:00.000Z';
      await store.db
        .insertInto('devices')
        .values({
          id: 'd1',
          name: 'r',
          model: 'mikrotik',
          mac_address: '00:11:22:33:44:55',
          site_id: 'default',
          local_network: '10.5.50.0/24',
          uam_server: 'http://10.5.50.1',
          radius_nas_id: 'r1',
          radius_client_ip: '10.5.50.1',
          coa_port: 3799,
          radius_secret_enc: null,
          uam_secret_enc: null,
          uam_auth: 'chap',
          require_message_authenticator: 1,
          created_at: now,
          updated_at: now,
        })
        .execute();
      const session = (id: string, stopped: string | null) => ({
        id,
        device_id: 'd1',
        acct_session_id: 'A1',
        username: 'u',
        grant_id: null,
        framed_ip: null,
        mac: null,
        input_octets: 0,
        output_octets: 0,
        session_time: 0,
        started_at: now,
        updated_at: now,
        stopped_at: stopped,
        terminate_cause: null,
      });
      await store.db.insertInto('radius_sessions').values(session('s1', now)).execute();
      await store.db.insertInto('radius_sessions').values(session('s2', null)).execute();
      await t.rejects(
        store.db.insertInto('radius_sessions').values(session('s3', null)).execute(),
        { code: '23505' },
        'a second open session with the same id is refused',
      );
      await t.rejects(
        down0016(store.db),
        /reused an Acct-Session-Id/,
        '0016 down refuses what would collide',
      );
      await store.db.deleteFrom('radius_sessions').where('id', '=', 's1').execute();
      await down0016(store.db);
      await t.rejects(
        store.db.insertInto('radius_sessions').values(session('s4', now)).execute(),
        { code: '23505' },
        'before 0016 the id was unique forever',
      );
      await up0016(store.db);
      await store.db.insertInto('radius_sessions').values(session('s4', now)).execute();

      // 0015 on PostgreSQL: a device may use the global secret (NULL); going down needs none to.
      await t.rejects(down0015(store.db), /rotate-secret/);
      await store.db.updateTable('devices').set({ radius_secret_enc: 'sealed' }).execute();
      await down0015(store.db);
      await t.rejects(store.db.updateTable('devices').set({ radius_secret_enc: null }).execute(), {
        code: '23502',
      });

      // 0029 on PostgreSQL: the sealed copies of voucher codes go, every other value stays.
      await down0029(store.db);
      await sql`insert into plans (id, name, description, price_tzs, duration_seconds, active, sort_order,
        created_at, updated_at) values ('p1', 'Day', '', 2000, 86400, 1, 0, ${now}, ${now})`.execute(
        store.db,
      );
      await sql`insert into voucher_batches (id, plan_id, site_id, count, prefix, code_length, created_by,
        created_at, price_tzs, duration_seconds, max_devices)
        values ('b1', 'p1', 'default', 1, '', 10, 'cli:root', ${now}, 2000, 86400, 1)`.execute(store.db);
      await sql`insert into vouchers (id, batch_id, code_hash, code_enc, last3, status)
        values ('v1', 'b1', 'h1', 'sealed-code', 'ABC', 'unused')`.execute(store.db);
      await up0029(store.db);
      const columns = await sql<{ column_name: string }>`select column_name from information_schema.columns
        where table_schema = current_schema() and table_name = 'vouchers'`.execute(store.db);
      t.notOk(
        columns.rows.some((c) => c.column_name === 'code_enc'),
        '0029 drops the sealed copies on PostgreSQL',
      );
      t.match(await store.db.selectFrom('vouchers').selectAll().execute(), [
        { id: 'v1', code_hash: 'h1', last3: 'ABC', status: 'unused' },
      ]);
    },
  );

  t.test('a group commit on PostgreSQL: one transaction, and a failing unit rolls back alone', async (t) => {
    const store = await open(t, t.testdir());
    const commits = new GroupCommit(store.db);
    const write = (key: string, fail: boolean) =>
      commits.run(async (tx) => {
        await tx.insertInto('app_meta').values({ key, value: 'v', updated_at: 'x' }).execute();
        if (fail) throw new Error('injected failure');
        return key;
      });
    const results = await Promise.allSettled([write('a', false), write('b', true), write('c', false)]);
    t.same(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    t.same(commits.stats, { transactions: 1, units: 3 }, 'the three units shared one transaction');
    t.same(
      (await store.db.selectFrom('app_meta').select('key').orderBy('key').execute()).map((r) => r.key),
      ['a', 'c'],
      'the failing unit left nothing, the others committed',
    );
  });

  t.test('64-bit counters, sums and counts come back as numbers, as on SQLite', async (t) => {
    const store = await open(t, t.testdir());
    const big = 2 ** 40 + 7;
    await store.db
      .insertInto('rate_limits')
      .values([
        { key: 'a', count: 1, expires_at_ms: big },
        { key: 'b', count: 2, expires_at_ms: big },
      ])
      .execute();
    const row = await store.db
      .selectFrom('rate_limits')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.sum<number>('expires_at_ms').as('total'),
        eb.fn.max('expires_at_ms').as('max'),
      ])
      .executeTakeFirstOrThrow();
    t.same(row, { n: 2, total: 2 * big, max: big });
    t.equal(typeof row.total, 'number');
  });

  t.test('transactions of two daemons take turns: a read-then-write loses no update', async (t) => {
    const dir = t.testdir();
    const a = await open(t, dir);
    const b = await open(t, dir, false);
    await a.db.insertInto('app_meta').values({ key: 'n', value: '0', updated_at: 'x' }).execute();
    const bump = (store: Store) =>
      store.db.transaction().execute(async (tx) => {
        const { value } = await tx
          .selectFrom('app_meta')
          .select('value')
          .where('key', '=', 'n')
          .executeTakeFirstOrThrow();
        await tx
          .updateTable('app_meta')
          .set({ value: String(Number(value) + 1) })
          .where('key', '=', 'n')
          .execute();
      });
    await Promise.all(Array.from({ length: 20 }, (_, i) => bump(i % 2 === 0 ? a : b)));
    const { value } = await a.db
      .selectFrom('app_meta')
      .select('value')
      .where('key', '=', 'n')
      .executeTakeFirstOrThrow();
    t.equal(value, '20');
  });

  t.test(
    'the change feed moves on our own commits at once and on another daemon’s when notified',
    async (t) => {
      const dir = t.testdir();
      const a = await open(t, dir);
      const b = await open(t, dir, false);
      if (!a.feed || !b.feed) throw new Error('PostgreSQL stores have a feed');
      const v0 = a.feed.version(['plans']);
      t.not(v0, null, 'the feed is up');

      // Our own write: a new version as soon as the statement has returned.
      await a.db.insertInto('app_meta').values({ key: 'k', value: 'v', updated_at: 'x' }).execute();
      t.equal(a.feed.version(['plans']), v0, 'a write to another table leaves plans alone');
      const inserting = a.db
        .insertInto('plans')
        .values({
          id: 'p1',
          name: 'Hour',
          description: '',
          price_tzs: 500,
          site_id: 'default',
          duration_seconds: 3600,
          data_limit_bytes: null,
          active: 1,
          sort_order: 0,
          max_devices: 1,
          created_at: 'x',
          updated_at: 'x',
          download_kbps: null,
          upload_kbps: null,
          remember_device: 0,
        })
        .execute();
      await inserting;
      const v1 = a.feed.version(['plans']);
      t.not(v1, v0, 'our commit moved the version');

      // Inside a transaction: counted at commit, not before; nothing for a rollback.
      await a.db.transaction().execute(async (tx) => {
        await tx.updateTable('plans').set({ name: 'Hour+' }).execute();
        t.equal(a.feed.version(['plans']), v1, 'not before the commit');
      });
      const v2 = a.feed.version(['plans']);
      t.not(v2, v1, 'moved at commit');
      await t.rejects(
        a.db.transaction().execute(async (tx) => {
          await tx.updateTable('plans').set({ name: 'never' }).execute();
          throw new Error('abort');
        }),
      );
      t.equal(a.feed.version(['plans']), v2, 'a rollback changes nothing');

      // Another daemon's commit arrives through NOTIFY.
      const seenByB = b.feed.version(['plans']);
      const heard = once(b.feed, 'change');
      await a.db.updateTable('plans').set({ name: 'Two hours' }).execute();
      t.same(await heard, ['plans'], 'b heard of a’s write to plans');
      t.not(b.feed.version(['plans']), seenByB);
    },
  );

  t.test('a feed that loses its connection vouches for no cache until it is back', async (t) => {
    const dir = t.testdir();
    const name = `feedtest_${String(process.pid)}`;
    const url = new URL(storeEnv(dir).DATABASE_URL ?? '');
    url.searchParams.set('application_name', name);
    const store = await openStore({ dataDir: dir, databaseUrl: url.toString() }, { now: () => new Date() });
    t.teardown(() => store.close());
    await migrateToLatest(store.db);
    if (!store.feed) throw new Error('PostgreSQL stores have a feed');
    const before = store.feed.version(['grants']);
    const down = once(store.feed, 'change');
    // End this feed's LISTEN session from the server side, as a restart or a proxy would.
    const { rows } = await sql<{ ended: boolean }>`
      select pg_terminate_backend(pid) as ended from pg_stat_activity
      where application_name = ${name} and query like 'listen %'`.execute(store.db);
    t.same(rows, [{ ended: true }], 'the listening session ended');
    await down;
    t.equal(store.feed.version(['grants']), null, 'no version while down');
    while (!store.feed.healthy) await once(store.feed, 'change');
    const after = store.feed.version(['grants']);
    t.not(after, null);
    t.not(after, before, 'every cached value made before is void');
  });

  t.test('the feed keeps trying after a failed reconnect, and is back once the server answers', async (t) => {
    // The store reaches PostgreSQL through a proxy that can drop every connection and refuse new ones.
    const dir = t.testdir();
    const direct = new URL(storeEnv(dir).DATABASE_URL ?? '');
    let refusing = false;
    const links = new Set<Socket>();
    const proxy = createServer((inbound) => {
      if (refusing) {
        inbound.destroy();
        return;
      }
      const outbound = connect(Number(direct.port), direct.hostname);
      links.add(inbound).add(outbound);
      inbound.pipe(outbound).pipe(inbound);
      const drop = (): void => {
        inbound.destroy();
        outbound.destroy();
      };
      inbound.on('error', drop).on('close', drop);
      outbound.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    t.teardown(() => proxy.close());
    const viaProxy = new URL(direct);
    viaProxy.port = String((proxy.address() as AddressInfo).port);
    const store = await openStore(
      { dataDir: dir, databaseUrl: viaProxy.toString() },
      { now: () => new Date() },
    );
    t.teardown(() => store.close());
    if (!store.feed) throw new Error('PostgreSQL stores have a feed');
    const feed = store.feed;
    t.ok(feed.healthy);

    // Down, and the first reconnects are refused: the feed must not give up.
    refusing = true;
    let refused = 0;
    proxy.on('connection', () => {
      refused++;
    });
    for (const link of links) link.destroy();
    const healthy = (): boolean => feed.healthy; // read anew each time: the feed changes it
    while (healthy()) await once(feed, 'change');
    t.equal(feed.version(['grants']), null, 'nothing cached while down');
    while (refused < 2) await once(proxy, 'connection');
    refusing = false;
    while (!healthy()) await once(feed, 'change');
    t.pass(`listening again after ${String(refused)} refused tries`);
    t.not(feed.version(['grants']), null);
  });

  t.test('a transaction that cannot get the write lock leaves its connection clean', async (t) => {
    const dir = t.testdir();
    const holder = await open(t, dir);
    // A second daemon whose operator set lock_timeout (kept beside our own search_path).
    const url = new URL(storeEnv(dir).DATABASE_URL ?? '');
    url.searchParams.set('options', '-c lock_timeout=200');
    const waiter = await openStore({ dataDir: dir, databaseUrl: url.toString() }, { now: () => new Date() });
    t.teardown(() => waiter.close());
    const { rows } = await sql<{
      timeout: string;
    }>`select current_setting('lock_timeout') as timeout`.execute(waiter.db);
    t.same(rows, [{ timeout: '200ms' }], 'the URL’s options apply');
    let release = (): void => undefined;
    let locked = (): void => undefined;
    const holding = new Promise<void>((r) => (locked = r));
    const held = holder.db.transaction().execute(async () => {
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await holding;
    await t.rejects(
      waiter.db.transaction().execute(async () => undefined),
      { code: '55P03' },
      'lock_timeout ends the wait',
    );
    t.same(
      await waiter.db.selectFrom('app_meta').select('key').where('key', '=', 'none').execute(),
      [],
      'the next query on that connection runs: it was rolled back, not left aborted',
    );
    t.same(
      (await sql<{ schema: string }>`select current_schema() as schema`.execute(waiter.db)).rows,
      [{ schema: url.searchParams.get('schema') }],
      'still in its own schema',
    );
    release();
    await held;
  });

  t.test('a job runs on one daemon per schedule tick; a busy job is not run twice', async (t) => {
    const dir = t.testdir();
    const a = await open(t, dir);
    const b = await open(t, dir, false);
    const runs: string[] = [];
    const tick = '2026-11-25T10:00:00.000Z';
    const [ranA, ranB] = await Promise.all([
      a.exclusive('grants.expire', async () => void runs.push('a'), tick),
      b.exclusive('grants.expire', async () => void runs.push('b'), tick),
    ]);
    t.equal(runs.length, 1, 'one of them ran it');
    t.equal(Number(ranA) + Number(ranB), 1);
    t.notOk(
      await a.exclusive('grants.expire', async () => void runs.push('again'), tick),
      'not again for that tick',
    );
    t.ok(await b.exclusive('grants.expire', async () => void runs.push('next'), '2026-11-25T10:01:00.000Z'));

    // While one daemon runs a job, the other skips it (no tick: an operator's run).
    let release = (): void => undefined;
    let started = (): void => undefined;
    const running = new Promise<void>((r) => (started = r));
    const holding = a.exclusive(
      'payments.poll',
      () =>
        new Promise<void>((r) => {
          release = r;
          started();
        }),
    );
    await running;
    t.notOk(await b.exclusive('payments.poll', async () => undefined), 'b is turned away while a runs it');
    release();
    t.ok(await holding);
    t.ok(await b.exclusive('payments.poll', async () => undefined), 'free again afterwards');
    t.same(runs, [runs[0], 'next']);
  });

  t.test('limiter windows in the database count every daemon’s requests', async (t) => {
    const dir = t.testdir();
    const a = new SqlRateLimitStore((await open(t, dir)).db);
    const b = new SqlRateLimitStore((await open(t, dir, false)).db);
    const counts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).increment('w|ip|0', 5000)),
    );
    t.same(
      [...counts].sort((x, y) => x - y),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    t.equal(await a.increment('w|ip|0', 5000, -1), 9, 'taken back');
    await b.increment('w|ip|6000', 11000);
    await a.prune(5000);
    t.equal(await b.increment('w|ip|0', 5000), 1, 'the ended window was forgotten');
    t.equal(await b.increment('w|ip|6000', 11000), 2, 'the current one was kept');
  });
}
