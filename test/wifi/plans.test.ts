import t from 'tap';
import { createPlan, listPlans, updatePlan } from '../../src/wifi/index.js';
import { startTestApp } from '../helpers/app.js';
import { jsonRequest } from '../helpers/http.js';
import { aPlan, wifiRows } from '../helpers/wifi.js';

t.test('GET /api/v1/public/plans lists active plans by sort_order, price, then name', async (t) => {
  const { app, base } = await startTestApp(t);
  const empty = await jsonRequest(`${base}/api/v1/public/plans`);
  t.equal(empty.status, 200);
  t.same(empty.body, { data: [] });

  const day = await aPlan(app, { name: 'Day', price_tzs: 3000, duration_seconds: 86_400, sort_order: 1 });
  const hourB = await aPlan(app, {
    name: 'Hour B',
    price_tzs: 1000,
    description: 'Fast',
    data_limit_bytes: 500_000_000,
  });
  const hourA = await aPlan(app, { name: 'Hour A', price_tzs: 1000 });
  const cheap = await aPlan(app, { name: 'Half hour', price_tzs: 500, duration_seconds: 1800 });
  await aPlan(app, { name: 'Hidden', price_tzs: 600, active: false });
  const res = await jsonRequest(`${base}/api/v1/public/plans`);
  t.equal(res.status, 200);
  t.same(res.body, {
    data: [
      { id: cheap.id, name: 'Half hour', description: '', price_tzs: 500, duration_seconds: 1800 },
      { id: hourA.id, name: 'Hour A', description: '', price_tzs: 1000, duration_seconds: 3600 },
      {
        id: hourB.id,
        name: 'Hour B',
        description: 'Fast',
        price_tzs: 1000,
        duration_seconds: 3600,
        data_limit_bytes: 500_000_000,
      },
      { id: day.id, name: 'Day', description: '', price_tzs: 3000, duration_seconds: 86_400 },
    ],
  });
});

t.test('plan values are checked: price at least 500, positive duration and data limit', async (t) => {
  const { app } = await startTestApp(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ price_tzs: 499 }, 'price_tzs must be a whole number of at least 500'],
    [{ price_tzs: 1000.5 }, 'price_tzs must be a whole number of at least 500'],
    [{ price_tzs: '1000' }, 'price_tzs must be a whole number of at least 500'],
    [{ duration_seconds: 0 }, 'duration_seconds must be a positive whole number'],
    [{ data_limit_bytes: 0 }, 'data_limit_bytes must be a positive whole number or null'],
    [{ name: '  ' }, 'name must be 1-100 characters'],
    [{ active: 'yes' }, 'active must be true or false'],
    [{ sort_order: 1.5 }, 'sort_order must be a whole number'],
    [{ description: 'x'.repeat(1001) }, 'description must be at most 1000 characters'],
  ];
  for (const [overrides, message] of cases) {
    await t.rejects(aPlan(app, overrides), { status: 422, message }, Object.keys(overrides).join());
  }
  await t.rejects(createPlan(app.deps, { name: 'No price', duration_seconds: 60 }), {
    status: 422,
    message: 'price_tzs must be a whole number of at least 500',
  });
  t.same((await wifiRows(app.deps.db)).plans, [], 'nothing was stored');
});

t.test('updatePlan replaces the supplied values only and refuses unknown plans', async (t) => {
  const { app, clock } = await startTestApp(t);
  const plan = await aPlan(app, { data_limit_bytes: 1000 });
  clock.advance('1m');
  const updated = await updatePlan(app.deps, plan.id, {
    price_tzs: 1500,
    active: false,
    data_limit_bytes: null,
  });
  t.match(updated, {
    id: plan.id,
    name: '1 hour',
    price_tzs: 1500,
    active: 0,
    data_limit_bytes: null,
    created_at: plan.created_at,
    updated_at: '2026-01-15T09:01:00.000Z',
  });
  await t.rejects(updatePlan(app.deps, plan.id, { price_tzs: 10 }), {
    status: 422,
    message: 'price_tzs must be a whole number of at least 500',
  });
  await t.rejects(updatePlan(app.deps, '00000000-0000-4000-8000-000000000000', { price_tzs: 900 }), {
    status: 404,
    message: 'plan not found',
  });
  t.same(await listPlans(app.deps), [updated], 'the refused changes changed nothing');
});
