import radius from 'radius';
import t from 'tap';
import { CODE, decodeAttributes, encodeRequest, frame, verifyReply } from '../../src/radius/codec.js';
import { rotateDeviceSecret, type DeviceRequest } from '../../src/wifi/index.js';
import { aLiveSession } from '../helpers/wifi.js';
import {
  BLAST_CHECKS,
  NAS_ID,
  SECRET,
  aGuest,
  exchangeMany,
  papRequest,
  radclient,
  routerSocket,
  sendExpectingDrop,
  startRadiusApp,
} from '../helpers/radius.js';

/** Access-Request against the running app, with FreeRADIUS radclient as the router. */

const chilli: DeviceRequest = { model: 'CoovaChilli on OpenWrt' };
const mikrotik: DeviceRequest = { model: 'MikroTik hAP ax2' };

t.test(
  'PAP: Access-Accept with Session-Timeout, interim, idle and the data left, Message-Authenticator first',
  async (t) => {
    const app = await startRadiusApp(t, { device: chilli });
    const g = await aGuest(app, { data_limit_bytes: 5_000_000_000 });
    app.clock.advance('10m');
    const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
    t.equal(run.exitCode, 0, run.output);
    t.same(run.replies, [
      {
        code: 'Access-Accept',
        attributes: {
          'Message-Authenticator': run.replies[0]?.attributes['Message-Authenticator'],
          'Session-Timeout': '3000',
          'Acct-Interim-Interval': '300',
          'Idle-Timeout': '600',
          'ChilliSpot-Max-Total-Octets': String(5_000_000_000 % 2 ** 32),
          'Attr-26.14559.23': '0x00000001',
        },
      },
    ]);
    t.equal(Object.keys(run.replies[0]?.attributes ?? {})[0], 'Message-Authenticator', 'first');
    if (BLAST_CHECKS) t.notMatch(run.output, /WARNING/, 'radclient -b has nothing to warn about');
    t.equal(app.app.radius.counters.get('auth_accepts'), 1);
  },
);

t.test('a MikroTik gets Mikrotik-Total-Limit; a plan without a data limit sends none', async (t) => {
  const app = await startRadiusApp(t, { device: mikrotik });
  const capped = await aGuest(app, { data_limit_bytes: 1_000_000_000 });
  const run = await radclient(app.auth, 'auth', papRequest(capped.username, capped.password));
  t.match(run.replies, [{ code: 'Access-Accept', attributes: { 'Mikrotik-Total-Limit': '1000000000' } }]);
  t.notOk('ChilliSpot-Max-Total-Octets' in (run.replies[0]?.attributes ?? {}));
  const open = await aGuest(app);
  const plain = await radclient(app.auth, 'auth', papRequest(open.username, open.password));
  t.same(Object.keys(plain.replies[0]?.attributes ?? {}), [
    'Message-Authenticator',
    'Session-Timeout',
    'Acct-Interim-Interval',
    'Idle-Timeout',
  ]);
});

t.test('a plan longer than a 4-octet Session-Timeout gets the largest one, not silence', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app, { duration_seconds: 2 ** 33 });
  const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(
    run.replies,
    [{ code: 'Access-Accept', attributes: { 'Session-Timeout': '4294967295' } }],
    run.output,
  );
});

t.test(
  'a router of another make gets both vendor sets, MikroTik and ChilliSpot, with their gigawords',
  async (t) => {
    const app = await startRadiusApp(t, { device: { model: 'Ubiquiti UniFi U6 Lite' } });
    const g = await aGuest(app, { data_limit_bytes: 5_000_000_000 });
    const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
    t.equal(run.exitCode, 0, run.output);
    t.same(run.replies, [
      {
        code: 'Access-Accept',
        attributes: {
          'Message-Authenticator': run.replies[0]?.attributes['Message-Authenticator'],
          'Session-Timeout': '3600',
          'Acct-Interim-Interval': '300',
          'Idle-Timeout': '600',
          'ChilliSpot-Max-Total-Octets': String(5_000_000_000 % 2 ** 32),
          'Attr-26.14559.23': '0x00000001',
          'Mikrotik-Total-Limit': String(5_000_000_000 % 2 ** 32),
          'Mikrotik-Total-Limit-Gigawords': '1',
        },
      },
    ]);
  },
);

t.test('PAP: a wrong password or unknown user gets Access-Reject with only a Reply-Message', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  for (const [user, pass] of [
    [g.username, 'wrong-pass'],
    ['nobody42', g.password],
  ] as const) {
    const run = await radclient(app.auth, 'auth', papRequest(user, pass));
    t.same(run.replies, [
      {
        code: 'Access-Reject',
        attributes: {
          'Message-Authenticator': run.replies[0]?.attributes['Message-Authenticator'],
          'Reply-Message': '"Unknown username or wrong password"',
        },
      },
    ]);
  }
  t.equal(app.app.radius.counters.get('auth_rejects'), 2);
});

t.test('CHAP: computed by radclient, and precomputed the way CoovaChilli sends it', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const lines = (extra: string[]) =>
    [
      `User-Name = "${g.username}"`,
      `NAS-Identifier = "${NAS_ID}"`,
      'Message-Authenticator = 0x00',
      ...extra,
    ].join('\n');
  const computed = await radclient(app.auth, 'auth', lines([`CHAP-Password = "${g.password}"`]));
  t.match(computed.replies, [{ code: 'Access-Accept' }], computed.output);
  const { createHash } = await import('node:crypto');
  const challenge = Buffer.from('dcb190b93595621189e7386a9e0a5dbb', 'hex');
  const response = createHash('md5').update(Buffer.of(0)).update(g.password).update(challenge).digest();
  const chilliStyle = await radclient(
    app.auth,
    'auth',
    lines([
      `CHAP-Challenge = 0x${challenge.toString('hex')}`,
      `CHAP-Password = 0x00${response.toString('hex')}`,
    ]),
  );
  t.match(chilliStyle.replies, [{ code: 'Access-Accept' }], chilliStyle.output);
  const wrong = await radclient(app.auth, 'auth', lines(['CHAP-Password = "not-it"']));
  t.match(wrong.replies, [{ code: 'Access-Reject' }]);
});

/** An Access-Request without Message-Authenticator, as a pre-BlastRADIUS router sends it. */
function legacyRequest(username: string, password: string, extra: unknown[] = []): Buffer {
  return radius.encode({
    code: 'Access-Request',
    secret: SECRET,
    identifier: 5,
    attributes: [['User-Name', username], ['User-Password', password], ['NAS-Identifier', NAS_ID], ...extra],
  });
}

t.test('BlastRADIUS: no Message-Authenticator is dropped unless the device is legacy', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  t.same(
    await sendExpectingDrop(
      app,
      app.auth,
      legacyRequest(g.username, g.password),
      'dropped_no_message_authenticator',
    ),
    [],
    'dropped without an answer',
  );

  const legacy = await startRadiusApp(t, { device: { require_message_authenticator: false } });
  const lg = await aGuest(legacy);
  const request = legacyRequest(lg.username, lg.password);
  const [reply] = await exchangeMany(legacy.auth, [request]);
  const f = frame(reply!);
  t.ok(f.ok && f.frame.code === CODE.accessAccept, 'the legacy router is answered');
  t.ok(f.ok && f.frame.maOffset === 22, 'still with Message-Authenticator first');
  t.ok(f.ok && verifyReply(request, f.frame, SECRET));
  t.same(
    await sendExpectingDrop(
      legacy,
      legacy.auth,
      legacyRequest(lg.username, lg.password, [['Proxy-State', Buffer.from('x')]]),
      'dropped_proxy_state_without_message_authenticator',
    ),
    [],
    'but a Proxy-State without Message-Authenticator is refused (limit_proxy_state)',
  );
});

t.test('unknown NAS ids and wrong secrets are dropped silently and counted', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  const unknown = encodeRequest(
    CODE.accessRequest,
    1,
    [
      ['User-Name', g.username],
      ['NAS-Identifier', 'rogue'],
    ],
    SECRET,
  );
  t.same(await sendExpectingDrop(app, app.auth, unknown, 'dropped_unknown_nas'), []);
  const noNas = encodeRequest(CODE.accessRequest, 2, [['User-Name', g.username]], SECRET);
  t.same(await sendExpectingDrop(app, app.auth, noNas, 'dropped_unknown_nas'), []);
  const wrong = encodeRequest(
    CODE.accessRequest,
    3,
    [
      ['User-Name', g.username],
      ['User-Password', g.password],
      ['NAS-Identifier', NAS_ID],
    ],
    'not-the-secret',
  );
  t.same(await sendExpectingDrop(app, app.auth, wrong, 'dropped_bad_authenticator'), []);
  const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password), {
    secret: 'not-the-secret',
    tries: 1,
  });
  t.same(run.replies, [], 'radclient with the wrong secret gets no answer either');
  t.equal(app.app.radius.counters.get('auth_requests'), 0, 'nothing reached the grant service');
  const logged = app.logs.events('radius.dropped');
  t.match(logged, [
    { reason: 'unknown_nas', nas_id: 'rogue' },
    { reason: 'unknown_nas' },
    { reason: 'bad_authenticator' },
  ]);
  t.notMatch(
    app.logs.raw.join('\n'),
    new RegExp(`${SECRET}|${g.password}`),
    'no secret or password in the log',
  );
});

t.test('a rotated secret applies to the next packet', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app);
  t.match((await radclient(app.auth, 'auth', papRequest(g.username, g.password))).replies, [
    { code: 'Access-Accept' },
  ]);
  await rotateDeviceSecret(app.app.deps, app.deviceId, 'rotated-secret-000002');
  app.clock.advance('2s');
  const run = await radclient(app.auth, 'auth', papRequest(g.username, g.password), {
    secret: 'rotated-secret-000002',
  });
  t.match(run.replies, [{ code: 'Access-Accept' }], run.output);
});

t.test('a retransmission gets the cached answer without being processed again (RFC 5080)', async (t) => {
  // The duplicate cache is per process: with RADIUS workers a copy may reach another worker and be
  // processed again, to the same answer (workers.test.ts). This pins one process's cache.
  const app = await startRadiusApp(t, { env: { RADIUS_WORKERS: '1' } });
  const g = await aGuest(app);
  const packet = encodeRequest(
    CODE.accessRequest,
    42,
    [
      ['User-Name', g.username],
      ['User-Password', g.password],
      ['NAS-Identifier', NAS_ID],
    ],
    SECRET,
  );
  // One socket (same source port), each copy sent after the previous answer, as a router whose
  // answer got lost would resend.
  const router = await routerSocket(app.auth);
  t.teardown(() => router.close());
  const replies: Buffer[] = [];
  for (let copy = 1; copy <= 3; copy++) replies.push(await router.send(packet));
  t.equal(replies.length, 3, 'every copy is answered');
  t.same(replies[1], replies[0], 'with the same bytes');
  t.same(replies[2], replies[0]);
  t.equal(app.app.radius.counters.get('auth_requests'), 1, 'processed once');
  t.equal(app.app.radius.counters.get('duplicates_answered'), 2);
  app.clock.advance('6s');
  const before = app.app.radius.counters.get('auth_requests');
  await router.send(packet);
  t.equal(
    app.app.radius.counters.get('auth_requests'),
    before + 1,
    'after the 5 s window it is a new request',
  );
});

t.test(
  'simultaneous use: a second device is refused while the first is online; the same device is not',
  async (t) => {
    const app = await startRadiusApp(t);
    const g = await aGuest(app);
    await aLiveSession(app.app, {
      deviceId: app.deviceId,
      username: g.username,
      acctSessionId: 'a1',
      mac: '11:22:33:44:55:66',
    });
    const same = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
    t.match(same.replies, [{ code: 'Access-Accept' }], 'the phone that is online may log in again');
    const other = await radclient(
      app.auth,
      'auth',
      papRequest(g.username, g.password).replace('11-22-33-44-55-66', '66-55-44-33-22-11'),
    );
    t.match(other.replies, [
      {
        code: 'Access-Reject',
        attributes: { 'Reply-Message': '"This access is already in use on another device"' },
      },
    ]);
    const two = await aGuest(app, { max_devices: 2 });
    await aLiveSession(app.app, {
      deviceId: app.deviceId,
      username: two.username,
      acctSessionId: 'b1',
      mac: '11:22:33:44:55:66',
    });
    const second = await radclient(
      app.auth,
      'auth',
      papRequest(two.username, two.password).replace('11-22-33-44-55-66', '66-55-44-33-22-11'),
    );
    t.match(second.replies, [{ code: 'Access-Accept' }], 'a two-device plan lets a second device in');
  },
);

t.test('expired, revoked and used-up grants are rejected with their reason', async (t) => {
  const app = await startRadiusApp(t);
  const g = await aGuest(app, { data_limit_bytes: 1000 });
  const { recordAccounting } = await import('../../src/wifi/index.js');
  await recordAccounting(app.app.deps, [
    {
      deviceId: app.deviceId,
      statusType: 'Stop',
      acctSessionId: 'used',
      username: g.username,
      framedIp: null,
      mac: null,
      inputOctets: 400,
      outputOctets: 600,
      sessionTime: 60,
      terminateCause: 'Session-Timeout',
      delaySeconds: 0,
    },
  ]);
  const used = await radclient(app.auth, 'auth', papRequest(g.username, g.password));
  t.match(used.replies, [
    {
      code: 'Access-Reject',
      attributes: { 'Reply-Message': '"The data allowance of this access is used up"' },
    },
  ]);
  const later = await aGuest(app);
  app.clock.advance('1h');
  const expired = await radclient(app.auth, 'auth', papRequest(later.username, later.password));
  t.match(expired.replies, [
    { code: 'Access-Reject', attributes: { 'Reply-Message': '"This access has expired"' } },
  ]);
});

t.test('Status-Server with Message-Authenticator is answered on both ports', async (t) => {
  const app = await startRadiusApp(t);
  for (const [port, code] of [
    [app.auth, CODE.accessAccept],
    [app.acct, CODE.accountingResponse],
  ] as const) {
    const probe = encodeRequest(CODE.statusServer, 7, [['NAS-Identifier', NAS_ID]], SECRET);
    const [reply] = await exchangeMany(port, [probe]);
    const f = frame(reply!);
    t.ok(f.ok && f.frame.code === code && verifyReply(probe, f.frame, SECRET), `port ${String(port)}`);
    t.ok(f.ok && decodeAttributes(f.frame)?.['Message-Authenticator'], 'signed');
  }
});
