/**
 * A floor for Interim-Update on SQLite (bench/radius/run.ts, FLOORS): the least work a Node server
 * that commits each Interim-Update to SQLite before answering does, with none of our code. Usage:
 *   node --import <TypeScript loader> bench/radius/sqlite-floor.ts PORT SECRET DIR
 * It listens on 127.0.0.1:PORT and, for each Accounting-Request:
 * - checks the Request Authenticator (RFC 2866 §3: MD5 over the packet with 16 zero octets and the
 *   secret);
 * - reads Acct-Session-Id and the input/output octets and session time, in one walk;
 * - upserts one row keyed by the session id (an index lookup and a row write, the least a store of
 *   sessions does) in a transaction that takes every request read in the same turn of the event
 *   loop (group commit, as the daemon does), committed with WAL and synchronous=FULL (the WAL is
 *   synced at each commit: the same promise as the daemon's synchronous=NORMAL plus its own sync);
 * - answers each request of the batch after the commit (Accounting-Response, RFC 2866 §3).
 * Prints `ready` once bound. The daemon does more per packet than this (routers, grants, the
 * session rules of decision 0021, allowances, counters), so its rate can only be lower.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createSocket, type RemoteInfo } from 'node:dgram';
import path from 'node:path';
import Database from 'better-sqlite3';

const [port, secretText, dir] = process.argv.slice(2);
const secret = Buffer.from(secretText ?? '');
const db = new Database(path.join(dir ?? '.', 'floor.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(`create table if not exists sessions (
  acct_session_id text primary key, input_octets integer not null, output_octets integer not null,
  session_time integer not null, updated_at text not null)`);
const upsert = db.prepare(`insert into sessions values (?, ?, ?, ?, ?)
  on conflict (acct_session_id) do update set input_octets = excluded.input_octets,
  output_octets = excluded.output_octets, session_time = excluded.session_time, updated_at = excluded.updated_at`);
type Row = [string, number, number, number, string];
const commitBatch = db.transaction((rows: Row[]) => {
  for (const r of rows) upsert.run(r);
});

const md5 = (...parts: Buffer[]): Buffer => {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
};
const zeros = Buffer.alloc(16);
const socket = createSocket('udp4');
let batch: { request: Buffer; rinfo: RemoteInfo; row: Row }[] = [];

function answer(request: Buffer, rinfo: RemoteInfo): void {
  const reply = Buffer.alloc(20);
  reply[0] = 5; // Accounting-Response
  reply[1] = request[1] ?? 0;
  reply.writeUInt16BE(20, 2);
  md5(reply.subarray(0, 4), request.subarray(4, 20), secret).copy(reply, 4);
  socket.send(reply, rinfo.port, rinfo.address);
}

function flush(): void {
  const taken = batch;
  batch = [];
  commitBatch(taken.map((t) => t.row));
  for (const t of taken) answer(t.request, t.rinfo);
}

socket.on('message', (m: Buffer, rinfo: RemoteInfo) => {
  if (m.length < 20 || m[0] !== 4) return;
  if (!timingSafeEqual(md5(m.subarray(0, 4), zeros, m.subarray(20), secret), m.subarray(4, 20))) return;
  let id: string | null = null;
  let input = 0;
  let output = 0;
  let time = 0;
  for (let at = 20, len = m[21] ?? 0; at + 2 <= m.length && len >= 2; at += len, len = m[at + 1] ?? 0) {
    const type = m[at];
    if (type === 44) id = m.toString('utf8', at + 2, at + len);
    else if (len === 6 && type === 42) input = m.readUInt32BE(at + 2);
    else if (len === 6 && type === 43) output = m.readUInt32BE(at + 2);
    else if (len === 6 && type === 46) time = m.readUInt32BE(at + 2);
  }
  if (id === null) return;
  if (batch.length === 0) setImmediate(flush);
  batch.push({ request: m, rinfo, row: [id, input, output, time, new Date().toISOString()] });
});
socket.bind(Number(port), '127.0.0.1', () => console.log('ready'));
