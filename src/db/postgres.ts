import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  PostgresDriver,
  sql,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type QueryResult,
  type SchemaMetadata,
  type TableMetadata,
  type TransactionSettings,
} from 'kysely';
import type { DB } from './schema.js';
import { namesIn } from './sql-names.js';

/**
 * PostgreSQL mode (DESIGN.md §4.9): `DATABASE_URL=postgres://…`. Several daemons may share the
 * database, so this store gives them what SQLite gave one process:
 * - transactions are serialized as SQLite's BEGIN IMMEDIATE serializes them (one writer at a
 *   time), with a transaction-scoped advisory lock taken at BEGIN: read-then-write transactions
 *   (expiring grants, numbering invoices) keep their meaning under READ COMMITTED;
 * - a change feed (LISTEN/NOTIFY, fed by the statement triggers of migration 0018) tells every
 *   daemon which tables another one changed, so the caches of `prepared` stay true.
 */

export const CHANGES_CHANNEL = 'hotspot_changes';

/** What a `postgres://` DATABASE_URL names, with our own `schema` parameter taken out. */
export interface PostgresTarget {
  /** The URL as pg reads it (without `schema`). */
  connectionString: string;
  /** The schema the tables live in (created when missing); null: the server's default (public). */
  schema: string | null;
  /** Server settings (`-c name=value …`) for every connection: the URL's `options` and the schema's search_path. */
  options: string | null;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Splits our `?schema=NAME` parameter off a DATABASE_URL; throws on a name that is not plain. */
export function postgresTarget(url: string): PostgresTarget {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !SCHEMA_NAME.test(schema))
    throw new Error('DATABASE_URL schema must be lower-case letters, digits and _ (at most 63)');
  // pg lets the URL's `options` replace the config's: both go into one, the schema's last.
  const given = parsed.searchParams.get('options');
  parsed.searchParams.delete('options');
  const settings = [given, schema === null ? null : `-c search_path=${schema}`].filter((o) => o !== null);
  return {
    connectionString: parsed.toString(),
    schema,
    options: settings.length > 0 ? settings.join(' ') : null,
  };
}

/** 64-bit counters and sums come back as numbers, as SQLite returns them (exact below 2^53). */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const types = new pg.TypeOverrides();
types.setTypeParser(INT8_OID, Number);
types.setTypeParser(NUMERIC_OID, Number);

/** A signed 64-bit advisory-lock key for `name` within `schema` (daemons of other schemas never contend). */
export function lockKey(schema: string, name: string): bigint {
  return createHash('sha256').update(`hotspot-ctl\u0000${schema}\u0000${name}`).digest().readBigInt64BE(0);
}

const READS = /^\s*(select|show)\b/i;

/** The tables migration 0018's triggers NOTIFY about: the ones daemons cache reads of. */
const WATCHED_TABLES = ['grants', 'devices', 'radius_sessions', 'signing_keys', 'plans'];

/**
 * Versions of what tables hold, as this process knows them: a table's count moves after this
 * process committed a statement that names it (counted when the commit has returned, so a read
 * that begins later sees a new version) and when the change feed reports another process's
 * commit. While the feed is down nothing may be cached (versions are null); when it comes back
 * every version moves (notifications may have been missed).
 */
export class ChangeFeed extends EventEmitter<{ change: [table: string] }> {
  readonly #counts = new Map<string, number>();
  #epoch = 0;
  #healthy = false;
  /**
   * Tables whose writes are counted: the ones NOTIFY reports, from the start (a write before the
   * first read of a table may commit after that read was cached), and any other a cache asks about.
   */
  readonly #watched = new Set<string>(WATCHED_TABLES);
  /** Per write statement, the watched tables it names (memo; cleared when it grows past a bound). */
  readonly #names = new Map<string, readonly string[]>();

  /** A version of `tables` (lower-case), or null while the feed cannot vouch for the caches. */
  version(tables: readonly string[]): number | null {
    for (const table of tables) {
      if (this.#watched.has(table)) continue;
      this.#watched.add(table);
      this.#names.clear(); // its entries were worked out without this table
    }
    if (!this.#healthy) return null;
    let version = this.#epoch;
    for (const table of tables) version += this.#counts.get(table) ?? 0;
    return version;
  }

  get healthy(): boolean {
    return this.#healthy;
  }

  /** The watched tables a statement that may write names (any word that is one: over-counting is harmless). */
  written(sql: string): readonly string[] {
    let names = this.#names.get(sql);
    if (!names) {
      names = READS.test(sql) ? [] : namesIn(sql).filter((name) => this.#watched.has(name));
      if (this.#names.size >= 1_000) this.#names.clear();
      this.#names.set(sql, names);
    }
    return names;
  }

  /** Counts committed changes to `tables`. */
  bump(tables: Iterable<string>): void {
    for (const table of tables) {
      this.#counts.set(table, (this.#counts.get(table) ?? 0) + 1);
      this.emit('change', table);
    }
  }

  /** The feed is listening (again): caches may be used, none made before counts. */
  up(): void {
    this.#epoch++;
    this.#healthy = true;
    this.emit('change', '*');
  }

  down(): void {
    this.#healthy = false;
    this.#epoch++;
    this.emit('change', '*');
  }
}

interface TrackedConnection extends DatabaseConnection {
  inner: DatabaseConnection;
  /** Tables written since the last commit (or by the statement running outside a transaction). */
  pending: Set<string>;
  inTransaction: boolean;
}

/**
 * kysely's PostgreSQL driver, with every transaction holding the write lock from its BEGIN and
 * every committed write counted in the change feed.
 */
class HotspotPostgresDriver extends PostgresDriver {
  readonly #feed: ChangeFeed;
  readonly #writeLock: string;
  readonly #wrapped = new WeakMap<DatabaseConnection, TrackedConnection>();

  constructor(config: ConstructorParameters<typeof PostgresDriver>[0], feed: ChangeFeed, writeLock: bigint) {
    super(config);
    this.#feed = feed;
    this.#writeLock = `select pg_advisory_xact_lock(${writeLock.toString()})`;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    let tracked = this.#wrapped.get(inner);
    if (!tracked) {
      const feed = this.#feed;
      const conn: TrackedConnection = {
        inner,
        pending: new Set(),
        inTransaction: false,
        async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
          const names = feed.written(query.sql);
          const result = await inner.executeQuery<R>(query);
          if (names.length > 0) {
            for (const name of names) conn.pending.add(name);
            if (!conn.inTransaction) {
              feed.bump(conn.pending);
              conn.pending.clear();
            }
          }
          return result;
        },
        streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
          return inner.streamQuery<R>(query, chunkSize);
        },
      };
      tracked = conn;
      this.#wrapped.set(inner, tracked);
    }
    return tracked;
  }

  override async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const conn = connection as TrackedConnection;
    await super.beginTransaction(conn.inner, settings);
    conn.inTransaction = true;
    conn.pending.clear();
    try {
      await conn.inner.executeQuery(CompiledQuery.raw(this.#writeLock));
    } catch (err) {
      // kysely rolls back only a transaction whose BEGIN returned: never hand the pool an aborted one.
      await conn.inner.executeQuery(CompiledQuery.raw('rollback')).catch(() => undefined);
      conn.inTransaction = false;
      throw err;
    }
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as TrackedConnection;
    try {
      await super.commitTransaction(conn.inner);
      this.#feed.bump(conn.pending);
    } finally {
      conn.inTransaction = false;
      conn.pending.clear();
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const conn = connection as TrackedConnection;
    try {
      await super.rollbackTransaction(conn.inner);
    } finally {
      conn.inTransaction = false;
      conn.pending.clear();
    }
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const conn = connection as TrackedConnection;
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- inner is the driver's own PostgresConnection, unwrapped
    await super.releaseConnection(conn.inner as Parameters<PostgresDriver['releaseConnection']>[0]);
  }
}

/**
 * kysely's introspection (which its Migrator uses to find its own tables) limited to the store's
 * schema: the stock one reads the columns of every schema in the database, which costs seconds
 * where many venues or test runs keep schemas side by side.
 */
class SchemaIntrospector implements DatabaseIntrospector {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- introspection reads catalogs, not our tables
  constructor(readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db);
    return rows;
  }

  async getTables(
    options: DatabaseMetadataOptions = { withInternalKyselyTables: false },
  ): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      table: string;
      schema: string;
      kind: string;
      column: string;
      type: string;
      nullable: string;
      has_default: boolean;
      identity: string;
    }>`
      select c.table_name as "table", c.table_schema as "schema", t.table_type as kind,
             c.column_name as "column", c.udt_name as type, c.is_nullable as nullable,
             c.column_default is not null as has_default, c.is_identity as identity
      from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema()
      order by c.table_name, c.ordinal_position`.execute(this.db);
    const tables = new Map<string, TableMetadata>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && row.table.startsWith('kysely_')) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'VIEW', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        isNullable: row.nullable === 'YES',
        hasDefaultValue: row.has_default || row.identity === 'YES',
        isAutoIncrementing: row.identity === 'YES',
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

class HotspotPostgresDialect extends PostgresDialect {
  readonly #config: ConstructorParameters<typeof PostgresDriver>[0];
  readonly #feed: ChangeFeed;
  readonly #writeLock: bigint;
  constructor(config: ConstructorParameters<typeof PostgresDriver>[0], feed: ChangeFeed, writeLock: bigint) {
    super(config);
    this.#config = config;
    this.#feed = feed;
    this.#writeLock = writeLock;
  }
  override createDriver(): PostgresDriver {
    return new HotspotPostgresDriver(this.#config, this.#feed, this.#writeLock);
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the signature kysely's Dialect declares
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SchemaIntrospector(db);
  }
}

/** Reconnect delays of the change feed's listening connection. */
const LISTEN_RETRY_MS = [100, 500, 1000, 2000, 5000];

/** The LISTEN connection: reports other processes' commits to the feed, reconnecting when it drops. */
class Listener {
  #client: pg.Client | null = null;
  #closed = false;
  #attempt = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly schema: string,
    private readonly feed: ChangeFeed,
    /** Backend process ids of this process's own pool: their commits are counted already. */
    private readonly own: ReadonlySet<number>,
    private readonly onError: (err: unknown) => void,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client(this.config);
    client.on('notification', (msg) => {
      if (msg.channel !== CHANGES_CHANNEL || !msg.payload || this.own.has(msg.processId)) return;
      const dot = msg.payload.indexOf('.');
      if (msg.payload.slice(0, dot) === this.schema) this.feed.bump([msg.payload.slice(dot + 1)]);
    });
    client.on('error', (err) => {
      this.onError(err);
      this.#lost(client);
    });
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined); // half open: connected, not listening
      throw err;
    }
    if (this.#closed) {
      await client.end();
      return;
    }
    this.#client = client;
    this.#attempt = 0;
    this.feed.up();
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = null;
    this.feed.down();
    this.#retry();
  }

  /** Tries to listen again after a growing delay, and again after every failed try. */
  #retry(): void {
    if (this.#closed || this.#timer) return;
    const delay = LISTEN_RETRY_MS[Math.min(this.#attempt++, LISTEN_RETRY_MS.length - 1)] ?? 5000;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.start().catch((err: unknown) => {
        this.onError(err);
        if (!this.#client) this.#retry();
      });
    }, delay);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = null;
    this.feed.down();
    if (client) await client.end().catch(() => undefined);
  }
}

/**
 * The connection scheduled jobs' session locks are taken on: one of its own, outside the pool,
 * so jobs holding their locks never take the connections their own queries need. Opened on first
 * use, and again after it was lost (which released its locks).
 */
class LockSession {
  #client: Promise<pg.Client> | null = null;
  /** The last query sent: the next one waits for it (one query at a time on a pg client). */
  #last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Runs one query on the session, after the ones sent before it. */
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const run = this.#last.then(async () => (await this.client()).query<R>(text, values));
    this.#last = run.catch(() => undefined);
    return run;
  }

  client(): Promise<pg.Client> {
    if (!this.#client) {
      const client = new pg.Client(this.config);
      const opening = client.connect().then(() => client);
      const lost = (err?: unknown): void => {
        if (err) this.onError(err);
        if (this.#client === opening) this.#client = null;
      };
      client.on('error', lost);
      client.on('end', () => lost());
      opening.catch(lost);
      this.#client = opening;
    }
    return this.#client;
  }

  async close(): Promise<void> {
    const opening = this.#client;
    this.#client = null;
    if (opening) await (await opening.catch(() => null))?.end().catch(() => undefined);
  }
}

export interface OpenedPostgres {
  db: Kysely<DB>;
  feed: ChangeFeed;
  /** The schema the tables live in. */
  schema: string;
  /**
   * Runs `work` while holding the session advisory lock `name`; false (without running it) when
   * another process holds it, or, given the schedule `tick` (ISO time), when the last run of
   * `name` (job_runs) was for that tick. Any other tick may claim it: a daemon whose clock runs
   * ahead must not keep the others from their ticks (it may run a job twice instead).
   */
  exclusive(name: string, work: () => Promise<void>, tick?: string): Promise<boolean>;
  /** Stops the change feed (the pool closes with `db.destroy()`). */
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Stamps job claims (job_runs.updated_at). */
  now: () => Date;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  onListenError?: (err: unknown) => void;
}

/** Opens the PostgreSQL store named by `url` and starts its change feed. */
export async function openPostgres(url: string, options: PostgresOptions): Promise<OpenedPostgres> {
  const target = postgresTarget(url);
  const searchPath = target.options === null ? {} : { options: target.options };
  // TCP keepalive: a connection a NAT or firewall dropped silently ends with an error, so the
  // change feed goes down (no caching) and the job locks are taken anew, instead of waiting forever.
  const clientConfig: pg.ClientConfig = {
    connectionString: target.connectionString,
    types,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...searchPath,
  };
  if (target.schema) {
    const admin = new pg.Client({ connectionString: target.connectionString });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists ${target.schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({ ...clientConfig, max: options.poolSize ?? 10 });
  pool.on('error', (err) => options.onListenError?.(err)); // an idle client lost: the pool replaces it
  const own = new Set<number>();
  const pids = new WeakMap<pg.PoolClient, number>();
  pool.on('connect', (client) => {
    const pid = (client as pg.PoolClient & { processID?: number }).processID;
    if (pid === undefined) return;
    own.add(pid);
    pids.set(client, pid);
  });
  pool.on('remove', (client) => {
    const pid = pids.get(client);
    if (pid !== undefined) own.delete(pid);
  });
  let schema: string;
  try {
    const { rows } = await pool.query<{ schema: string }>('select current_schema() as schema');
    schema = rows[0]?.schema ?? 'public';
  } catch (err) {
    await pool.end();
    throw err;
  }
  const feed = new ChangeFeed();
  const db = new Kysely<DB>({
    dialect: new HotspotPostgresDialect({ pool }, feed, lockKey(schema, 'writes')),
  });
  const listener = new Listener(clientConfig, schema, feed, own, options.onListenError ?? (() => undefined));
  try {
    await listener.start();
  } catch (err) {
    await listener.close();
    await db.destroy();
    throw err;
  }
  const locks = new LockSession(clientConfig, options.onListenError ?? (() => undefined));
  return {
    db,
    feed,
    schema,
    async exclusive(name, work, tick) {
      const key = lockKey(schema, `job:${name}`).toString();
      const { rows } = await locks.query<{ locked: boolean }>(
        `select pg_try_advisory_lock(${key}) as locked`,
      );
      if (rows[0]?.locked !== true) return false;
      try {
        if (tick !== undefined) {
          const claimed = await locks.query(
            `insert into job_runs (name, tick, updated_at) values ($1, $2, $3)
             on conflict (name) do update set tick = excluded.tick, updated_at = excluded.updated_at
             where job_runs.tick <> excluded.tick
             returning name`,
            [name, tick, options.now().toISOString()],
          );
          if (claimed.rowCount !== 1) return false;
        }
        await work();
        return true;
      } finally {
        // A lost connection has let go of its locks already.
        await locks.query(`select pg_advisory_unlock(${key})`).catch(() => undefined);
      }
    },
    close: async () => {
      await locks.close();
      await listener.close();
    },
  };
}
