import { dataOf, ok } from './api.js';
import { $, show } from './dom.js';
import { t } from './forms.js';
import { adminApi, failure, time, tzs, withSite } from './admin-shell.js';

/** /admin: the counts of GET /api/v1/admin/overview, today's sales in the venue's day. */

interface Overview {
  devices: number;
  active_sessions: number;
  pending_invoices: number;
  live_grants: number;
  today: {
    since: string;
    timezone: string;
    sales: number;
    revenue_tzs: number;
    by_channel: Record<string, { sales: number; revenue_tzs: number; refunded_tzs: number }>;
  };
}

async function load(): Promise<void> {
  const result = await adminApi('GET', withSite('/overview'));
  $('stats').removeAttribute('aria-busy');
  const error = $('stats-error');
  show(error, !ok(result));
  if (!ok(result)) {
    error.textContent = failure(result);
    return;
  }
  const o = dataOf(result) as Overview;
  const values: Record<string, string> = {
    devices: String(o.devices),
    active_sessions: String(o.active_sessions),
    pending_invoices: String(o.pending_invoices),
    live_grants: String(o.live_grants),
    sales: String(o.today.sales),
    revenue_tzs: tzs(o.today.revenue_tzs),
  };
  for (const [key, text] of Object.entries(values)) $(`stat-${key}`).textContent = text;
  // Today's takings per channel (DESIGN.md §4.8): they add up to the revenue above, net of the
  // refunds recorded today (docs/decisions/0035), which are named where there are any.
  $('stats-channels').textContent = Object.entries(o.today.by_channel)
    .map(([channel, c]) =>
      t(c.refunded_tzs > 0 ? 'overview.channelRefunded' : 'overview.channel', {
        channel: t(`channel.${channel}`),
        sales: c.sales,
        amount: tzs(c.revenue_tzs),
        refunded: tzs(c.refunded_tzs),
      }),
    )
    .join(' · ');
  $('stats-since').textContent = t('overview.since', {
    time: time(o.today.since, o.today.timezone),
    zone: o.today.timezone,
  });
}

void load();
