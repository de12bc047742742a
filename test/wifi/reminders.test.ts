import t, { type Test } from 'tap';
import { sha256Hex } from '../../src/lib/crypto.js';
import { readOutbox } from '../../src/notify/index.js';
import { guestSmsTexts } from '../../src/web/index.js';
import {
  findLiveForPurchase,
  remindGuests,
  revoke,
  type PlanRequest,
  type ReminderOutcome,
} from '../../src/wifi/index.js';
import { claimReminder } from '../../src/wifi/reminders.store.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { fakeSmsGateway } from '../helpers/sms-gateway.js';
import { CoaListener } from '../helpers/coa-listener.js';
import { SECRET, acctRequest, quietRadiusApp, radclient, type RadiusTestApp } from '../helpers/radius.js';
import { aPaidPurchase, aPlan } from '../helpers/wifi.js';

/**
 * Messages to guests (DESIGN.md §4.8): the SMS 10 minutes before a grant ends and at 80 % of its
 * data allowance, once per grant, in the language the guest bought in. The job's function runs
 * by hand after the clock moves; the apps' own schedules are stopped.
 */

async function quietApp(t: Test, options: TestAppOptions = {}): Promise<TestApp> {
  const app = await startTestApp(t, options);
  await app.app.scheduler.stop();
  return app;
}

/** A paid purchase on a new plan, by `phone`, from a portal in `language` (Accept-Language). */
async function aGuest(app: TestApp, plan: PlanRequest, guest: { phone: string; language?: string }) {
  const purchase = await aPaidPurchase(app, await aPlan(app.app, plan), guest);
  const live = await findLiveForPurchase(app.app.deps, purchase.invoiceId, sha256Hex(purchase.key));
  if (live.kind !== 'live') throw new Error(`expected a live grant, got ${live.kind}`);
  return { grantId: live.grant.id, username: live.grant.username, invoiceId: purchase.invoiceId };
}

const remind = (app: TestApp) => remindGuests(app.app.deps, guestSmsTexts);

/** The reminders in the outbox, by phone and text (the credentials SMS of each payment left out). */
const remindersSent = async (app: TestApp) =>
  (await readOutbox(app.dataDir))
    .filter((e) => e.channel === 'sms' && !e.text.includes(' password '))
    .map((e) => ({ to: e.to, text: e.text }));

const grantRow = (app: TestApp, id: string) =>
  app.app.deps.db
    .selectFrom('grants')
    .select(['end_reminder_at', 'data_reminder_at'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

const HOUR = { duration_seconds: 3600 };
const SW_ENDS =
  'Hotspot Wi-Fi: muda wako unaisha baada ya dakika 10. Ili uendelee kuwa mtandaoni, nunua muda zaidi kwenye ukurasa wa Wi-Fi.';
const EN_ENDS =
  'Hotspot Wi-Fi: your time ends in 10 minutes. To stay online, buy more time on the Wi-Fi page.';

t.test('a grant 10 minutes from its end gets one SMS, in the language the guest bought in', async (t) => {
  const app = await quietApp(t);
  const sw = await aGuest(app, HOUR, { phone: '0712000001', language: 'sw-TZ,sw;q=0.9,en;q=0.8' });
  const en = await aGuest(app, HOUR, { phone: '0712000002' });
  const languages = await app.app.deps.db
    .selectFrom('invoices')
    .select(['id', 'language'])
    .where('id', 'in', [sw.invoiceId, en.invoiceId])
    .execute();
  t.same(
    languages.map((i) => [i.id === sw.invoiceId ? 'sw guest' : 'en guest', i.language]).sort(),
    [
      ['en guest', 'en'],
      ['sw guest', 'sw'],
    ],
    'the purchase keeps the portal language',
  );

  app.clock.advance('49m');
  t.same(await remind(app), [], '11 minutes left: not yet');
  app.clock.advance('1m');
  const sent = await remind(app);
  t.same(
    sent.map((o) => o.outcome),
    ['sent', 'sent'],
  );
  t.same(
    (await remindersSent(app)).sort((a, b) => a.to.localeCompare(b.to)),
    [
      { to: '+255712000001', text: SW_ENDS },
      { to: '+255712000002', text: EN_ENDS },
    ],
  );
  t.same(await grantRow(app, sw.grantId), {
    end_reminder_at: '2026-01-15T09:50:00.000Z',
    data_reminder_at: null,
  });

  t.same(await remind(app), [], 'the same minute again: nothing');
  app.clock.advance('5m');
  t.same(await remind(app), [], 'five minutes later: nothing');
  app.clock.advance('6m');
  t.same(await remind(app), [], 'ended: nothing');
  t.equal((await remindersSent(app)).length, 2, 'one SMS per grant in all');
});

t.test('the daemon runs the job every minute with the texts of web/strings', async (t) => {
  const app = await startTestApp(t, { env: { GUEST_REMINDERS: 'ends' } });
  t.ok(app.app.scheduler.names.includes('grants.remind'), 'scheduled');
  await aGuest(app, HOUR, { phone: '0712000020', language: 'sw' });
  app.clock.advance('50m');
  // As a tick would run it (a wall-clock tick meanwhile finds the reminder claimed).
  await app.app.scheduler.trigger('grants.remind');
  t.same(await remindersSent(app), [{ to: '+255712000020', text: SW_ENDS }]);
});

t.test('a late run says the minutes that are really left; under a minute left, none', async (t) => {
  const app = await quietApp(t);
  await aGuest(app, HOUR, { phone: '0712000003' });
  await aGuest(app, HOUR, { phone: '0712000004' });
  app.clock.advance(56 * 60_000 + 30_000); // a daemon that was down until 3 min 30 s before the end
  t.same(
    (await remind(app)).map((o) => o.outcome),
    ['sent', 'sent'],
  );
  t.same(
    (await remindersSent(app)).map((m) => m.text),
    [EN_ENDS.replace('10 minutes', '4 minutes'), EN_ENDS.replace('10 minutes', '4 minutes')],
  );

  const last = await aGuest(app, { duration_seconds: 1200 }, { phone: '0712000005' });
  app.clock.advance(19 * 60_000 + 1000);
  t.same(await remind(app), [], '59 seconds left: too late to be of use');
  t.same(await grantRow(app, last.grantId), { end_reminder_at: null, data_reminder_at: null });
});

t.test(
  'no end reminder for a revoked grant, nor for one that never lasted more than 10 minutes',
  async (t) => {
    const app = await quietApp(t);
    const revoked = await aGuest(app, HOUR, { phone: '0712000006' });
    await revoke(app.app.deps, revoked.grantId, 'refund');
    const short = await aGuest(app, { duration_seconds: 600 }, { phone: '0712000007' });
    t.same(await remind(app), [], 'a 10-minute plan would get it with its credentials');
    app.clock.advance('5m');
    t.same(await remind(app), []);
    app.clock.advance('45m');
    t.same(await remind(app), [], 'the revoked one at 10 minutes before its end');
    t.same(await remindersSent(app), []);
    t.same(await grantRow(app, short.grantId), { end_reminder_at: null, data_reminder_at: null });
  },
);

t.test('GUEST_REMINDERS=off sends no reminder; `data` alone sends no end reminder', async (t) => {
  for (const [setting, expected] of [
    ['off', []],
    ['data', []],
    ['ends', ['sent']],
  ] as const) {
    const app = await quietApp(t, { env: { GUEST_REMINDERS: setting }, dataDir: t.testdir() });
    await aGuest(app, HOUR, { phone: '0712000008' });
    app.clock.advance('50m');
    t.same(
      (await remind(app)).map((o) => o.outcome),
      expected,
      `GUEST_REMINDERS=${setting}`,
    );
    t.equal((await remindersSent(app)).length, expected.length);
    await app.app.close();
  }
});

t.test('a reminder claimed by a run that then crashed is not sent again', async (t) => {
  const app = await quietApp(t);
  const crashed = await aGuest(app, HOUR, { phone: '0712000009' });
  const other = await aGuest(app, HOUR, { phone: '0712000010' });
  app.clock.advance('50m');
  const at = app.clock.now().toISOString();
  t.equal(await claimReminder(app.app.deps.db, crashed.grantId, 'ends', at), true, 'claimed');
  t.equal(await claimReminder(app.app.deps.db, crashed.grantId, 'ends', at), false, 'claimed only once');
  t.same(await remind(app), [{ grantId: other.grantId, kind: 'ends', outcome: 'sent' }]);
  t.same(
    (await remindersSent(app)).map((m) => m.to),
    ['+255712000010'],
  );
  await revoke(app.app.deps, other.grantId, 'refund');
  t.equal(
    await claimReminder(app.app.deps.db, other.grantId, 'data', at),
    false,
    'a revoked grant: no claim',
  );
});

t.test('two daemons running the job at once send one SMS per reminder', async (t) => {
  const a = await quietApp(t);
  const b = await quietApp(t, { clock: a.clock, dataDir: a.dataDir });
  await aGuest(a, HOUR, { phone: '0712000011' });
  await aGuest(a, HOUR, { phone: '0712000012' });
  a.clock.advance('50m');
  const outcomes: ReminderOutcome[] = (
    await Promise.all([remind(a), remind(b), remind(a), remind(b)])
  ).flat();
  t.equal(outcomes.filter((o) => o.outcome === 'sent').length, 2, 'each reminder sent by one run');
  t.ok(
    outcomes.every((o) => o.outcome !== 'failed'),
    'the other runs found it claimed',
  );
  t.same((await remindersSent(a)).map((m) => m.to).sort(), ['+255712000011', '+255712000012']);
  t.same(await remind(b), []);
});

t.test('a reminder the gateway refused goes out on a later run, once', async (t) => {
  const status = { code: 503 };
  const gateway = await fakeSmsGateway(t, status);
  const app = await quietApp(t, { env: { SMS_PROVIDER: 'http', SMS_HTTP_URL: gateway.url } });
  const guest = await aGuest(app, HOUR, { phone: '0712000013' });
  app.clock.advance('50m');
  t.same(await remind(app), [{ grantId: guest.grantId, kind: 'ends', outcome: 'failed' }]);
  t.same(await grantRow(app, guest.grantId), { end_reminder_at: null, data_reminder_at: null }, 'given back');
  status.code = 200;
  app.clock.advance('1m');
  t.same(await remind(app), [{ grantId: guest.grantId, kind: 'ends', outcome: 'sent' }]);
  t.same(await remind(app), []);
  const reminders = gateway.texts.filter((text) => text.includes('your time ends'));
  t.same(
    reminders,
    [EN_ENDS, EN_ENDS.replace('10 minutes', '9 minutes')],
    'the refused try, then the one sent',
  );
});

/** Accounting from the router (radclient) for `username`'s session: Start, or an Interim-Update with totals. */
async function account(
  t: Test,
  app: RadiusTestApp,
  username: string,
  session: string,
  octets?: [number, number],
  status: 'Interim-Update' | 'Stop' = 'Interim-Update',
) {
  const lines =
    octets === undefined
      ? ['Acct-Status-Type = Start']
      : [
          `Acct-Status-Type = ${status}`,
          'Acct-Session-Time = 300',
          `Acct-Input-Octets = ${String(octets[0])}`,
          `Acct-Output-Octets = ${String(octets[1])}`,
        ];
  const run = await radclient(app.acct, 'acct', acctRequest(username, session, lines));
  t.match(run.replies, [{ code: 'Accounting-Response' }], run.output);
}

t.test(
  '80 % of the data allowance, as accounting counts it, brings one SMS; used up or unlimited, none',
  async (t) => {
    // The router's CoA port on loopback: the grant whose data runs out is disconnected there.
    const router = new CoaListener(SECRET);
    const coaPort = await router.listen();
    t.teardown(() => router.close());
    const app = await quietRadiusApp(t, { device: { radius_client_ip: '127.0.0.1', coa_port: coaPort } });
    const DAY = { duration_seconds: 86_400 };
    const tenMb = { ...DAY, data_limit_bytes: 10_000_000 };
    const sw = await aGuest(app, tenMb, { phone: '0712000014', language: 'sw' });
    const usedUp = await aGuest(app, tenMb, { phone: '0712000015' });
    const unlimited = await aGuest(app, DAY, { phone: '0712000016' });
    const guests = [
      [sw, 'A0000001'],
      [usedUp, 'A0000002'],
      [unlimited, 'A0000003'],
    ] as const;
    for (const [guest, session] of guests) await account(t, app, guest.username, session);

    app.clock.advance('5m');
    await account(t, app, sw.username, 'A0000001', [3_000_000, 4_900_000]);
    await account(t, app, unlimited.username, 'A0000003', [30_000_000, 90_000_000]);
    t.same(await remind(app), [], '79 % used, and no allowance: nothing');

    app.clock.advance('5m');
    await account(t, app, sw.username, 'A0000001', [3_000_000, 5_500_000]);
    await account(t, app, usedUp.username, 'A0000002', [2_000_000, 8_000_000]);
    t.same(await remind(app), [{ grantId: sw.grantId, kind: 'data', outcome: 'sent' }]);
    t.same(await remindersSent(app), [
      {
        to: '+255712000014',
        text: 'Hotspot Wi-Fi: umetumia asilimia 85 ya data yako. Ili uendelee kuwa mtandaoni ikiisha, nunua kifurushi kingine kwenye ukurasa wa Wi-Fi.',
      },
    ]);
    t.same(await grantRow(app, sw.grantId), {
      end_reminder_at: null,
      data_reminder_at: '2026-01-15T09:10:00.000Z',
    });

    app.clock.advance('5m');
    await account(t, app, sw.username, 'A0000001', [3_000_000, 6_500_000]);
    t.same(await remind(app), [], '95 %: it had its reminder');

    // The day ends: the used-up grant ended by its data, and gets no end reminder either.
    app.clock.advance(23 * 3_600_000 + 35 * 60_000);
    t.same(
      (await remind(app)).map((o) => `${o.grantId} ${o.kind} ${o.outcome}`).sort(),
      [`${sw.grantId} ends sent`, `${unlimited.grantId} ends sent`].sort(),
    );
    t.same((await remindersSent(app)).map((m) => m.to).sort(), [
      '+255712000014',
      '+255712000014',
      '+255712000016',
    ]);
    t.equal(router.received.length, 1, 'the used-up grant was cut when its data ran out');
  },
);

t.test('the English data reminder says the share used', async (t) => {
  const app = await quietRadiusApp(t, { env: { GUEST_REMINDERS: 'data' } });
  const guest = await aGuest(app, { data_limit_bytes: 1_000_000 }, { phone: '0712000017' });
  await account(t, app, guest.username, 'B0000001');
  await account(t, app, guest.username, 'B0000001', [400_000, 400_000]);
  t.same(await remind(app), [{ grantId: guest.grantId, kind: 'data', outcome: 'sent' }]);
  t.same(await remindersSent(app), [
    {
      to: '+255712000017',
      text: 'Hotspot Wi-Fi: you have used 80% of your data. To stay online when it runs out, buy another plan on the Wi-Fi page.',
    },
  ]);
});

t.test('a guest offline at 85 % gets the data reminder once back online, not while away', async (t) => {
  const app = await quietRadiusApp(t, { env: { GUEST_REMINDERS: 'data' } });
  const guest = await aGuest(app, { data_limit_bytes: 1_000_000 }, { phone: '0712000018' });
  await account(t, app, guest.username, 'C0000001');
  await account(t, app, guest.username, 'C0000001', [350_000, 500_000], 'Stop');
  t.same(await remind(app), [], 'no session open: the reminder waits');
  t.same(await grantRow(app, guest.grantId), { end_reminder_at: null, data_reminder_at: null });

  app.clock.advance('10m');
  await account(t, app, guest.username, 'C0000002');
  t.same(await remind(app), [{ grantId: guest.grantId, kind: 'data', outcome: 'sent' }]);
  t.equal((await remindersSent(app)).length, 1);
});
