import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { isoNow } from '../lib/time.js';
import type { RequestCounts } from '../http/request-counts.js';
import type { Counters } from '../radius/counters.js';
import type { Config } from '../config/index.js';
import { PAYMENT_OUTCOMES, routersUp, type PaymentOutcomes } from '../wifi/index.js';
import { invoicesByStatus, liveGrants, openSessions, paymentsByChannel } from './metrics.store.js';

/**
 * GET /metrics in the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). Two kinds of figure, said in
 * each HELP line because several daemons may share one PostgreSQL database: counters of this
 * daemon since it started (RADIUS packets, HTTP requests, job runs and failures, payment
 * outcomes, its memory), which Prometheus sums
 * across daemons, and gauges read from the shared database (sessions, grants, invoices,
 * payments), which every daemon reports alike (take one, not the sum). The RADIUS counters are
 * the listener's own (radius/counters.ts), the ones `status` shows once stored; with RADIUS
 * workers, the sum of theirs, asked for on each scrape (radius/workers.ts).
 */

export interface MetricsSources {
  db: Db;
  clock: Clock;
  config: Config;
  radius: Counters;
  /** Gathers the RADIUS workers' counts into `radius` first (RADIUS_WORKERS > 1). */
  radiusTally?: () => Promise<void>;
  jobRuns: ReadonlyMap<string, number>;
  jobFailures: ReadonlyMap<string, number>;
  outcomes: PaymentOutcomes;
  httpRequests: RequestCounts;
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Record<string, string>;
interface Family {
  name: string;
  type: 'counter' | 'gauge';
  help: string;
  samples: { labels?: Labels; value: number }[];
}

const OWN = "this daemon's, since it started";
const SHARED = 'the shared database: the same from every daemon on it';

/** A label value with \, " and newlines escaped as the format asks. */
const escapeLabel = (v: string): string =>
  v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function render(families: Family[]): string {
  const lines: string[] = [];
  for (const f of families) {
    lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) {
      const labels = Object.entries(s.labels ?? {});
      const set =
        labels.length === 0 ? '' : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
      lines.push(`${f.name}${set} ${String(s.value)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** RADIUS requests by kind and what became of them, from the listener's counters. */
function radiusFamilies(c: Counters): Family[] {
  const dropped = Object.entries(c.snapshot())
    .filter(([name]) => name.startsWith('dropped_'))
    .map(([name, value]) => ({ labels: { reason: name.slice('dropped_'.length) }, value }));
  return [
    {
      name: 'hotspot_radius_requests_total',
      type: 'counter',
      help: `RADIUS requests answered, by kind (access, accounting) and result (${OWN}).`,
      samples: [
        { labels: { kind: 'access', result: 'accept' }, value: c.get('auth_accepts') },
        { labels: { kind: 'access', result: 'reject' }, value: c.get('auth_rejects') },
        { labels: { kind: 'accounting', result: 'answered' }, value: c.get('acct_responses') },
        { labels: { kind: 'status', result: 'answered' }, value: c.get('status_server') },
      ],
    },
    {
      name: 'hotspot_radius_received_total',
      type: 'counter',
      help: `RADIUS requests received, answered or not, by kind (${OWN}).`,
      samples: [
        { labels: { kind: 'access' }, value: c.get('auth_requests') },
        { labels: { kind: 'accounting' }, value: c.get('acct_requests') },
      ],
    },
    {
      name: 'hotspot_radius_dropped_total',
      type: 'counter',
      help: `RADIUS packets dropped unanswered, by reason (${OWN}).`,
      samples: dropped,
    },
  ];
}

export async function collectMetrics(src: MetricsSources): Promise<string> {
  await src.radiusTally?.();
  const now = isoNow(src.clock);
  const [routers, sessions, grants, invoices, payments] = [
    await routersUp(src),
    await openSessions(src.db),
    await liveGrants(src.db, now),
    await invoicesByStatus(src.db),
    await paymentsByChannel(src.db),
  ];
  return render([
    ...radiusFamilies(src.radius),
    {
      name: 'hotspot_http_requests_total',
      type: 'counter',
      help: `HTTP requests answered, by method, route (its path template) and status (${OWN}).`,
      samples: src.httpRequests.entries().map((e) => ({
        labels: { method: e.method, route: e.route, status: String(e.status) },
        value: e.n,
      })),
    },
    {
      name: 'hotspot_job_runs_total',
      type: 'counter',
      help: `Scheduled job runs, failed or not, by job (${OWN}; a shared job counts where it ran).`,
      samples: [...src.jobRuns].map(([job, value]) => ({ labels: { job }, value })),
    },
    {
      name: 'hotspot_payments_total',
      type: 'counter',
      help: `Invoices settled, by outcome: paid (mobile money, counter, by hand), failed, expired (${OWN}; a failed or expired invoice paid later counts in both).`,
      samples: PAYMENT_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: src.outcomes.get(outcome) })),
    },
    {
      name: 'hotspot_job_failures_total',
      type: 'counter',
      help: `Scheduled job runs that failed, by job (${OWN}).`,
      samples: [...src.jobFailures].map(([job, value]) => ({ labels: { job }, value })),
    },
    {
      name: 'hotspot_sessions_open',
      type: 'gauge',
      help: `RADIUS sessions started and not stopped (${SHARED}).`,
      samples: [{ value: sessions }],
    },
    {
      // Issue 21 (docs/decisions/0038): the devices page's rule (wifi routerUp), archived routers left out.
      name: 'hotspot_router_online',
      type: 'gauge',
      help: `Routers not archived: 1 online, 0 offline or down, as the devices page shows them (${SHARED}).`,
      samples: routers.map((r) => ({
        labels: { router_id: r.id, router: r.name, site_id: r.site_id },
        value: r.up ? 1 : 0,
      })),
    },
    {
      name: 'hotspot_grants_live',
      type: 'gauge',
      help: `Access grants neither expired, ended nor revoked (${SHARED}).`,
      samples: [{ value: grants }],
    },
    {
      name: 'hotspot_invoices',
      type: 'gauge',
      help: `Invoices by status (${SHARED}).`,
      samples: invoices.map((r) => ({ labels: { status: r.status }, value: Number(r.n) })),
    },
    {
      name: 'hotspot_payments',
      type: 'gauge',
      help: `Payments recorded, by channel and kind: sale, or refund (${SHARED}).`,
      samples: payments.map((r) => ({ labels: { channel: r.channel, kind: r.kind }, value: Number(r.n) })),
    },
    {
      name: 'process_resident_memory_bytes',
      type: 'gauge',
      help: "Resident memory size in bytes (this daemon's).",
      samples: [{ value: process.memoryUsage.rss() }],
    },
    {
      name: 'process_start_time_seconds',
      type: 'gauge',
      help: "Start time of the process since the Unix epoch in seconds (this daemon's).",
      samples: [{ value: Math.round(performance.timeOrigin / 1000) }],
    },
  ]);
}
