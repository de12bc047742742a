import { dataOf, ok } from './api.js';
import { filteredTable } from './admin-filters.js';
import { $, show } from './dom.js';
import { t } from './forms.js';
import {
  adminApi,
  askConfirm,
  badge,
  bytes,
  can,
  element,
  failure,
  type RowAction,
  shortDuration,
  siteColumn,
  stacked,
  time,
} from './admin-shell.js';

/**
 * /admin/sessions: the RADIUS sessions (GET /api/v1/admin/sessions); operators disconnect one
 * (POST …/disconnect), which revokes the guest's access and asks each router to drop the
 * guest's sessions. Each router's answer is shown as the API reports it.
 */

interface Session {
  id: string;
  device_name: string | null;
  nas_id: string;
  username: string;
  framed_ip: string | null;
  mac: string | null;
  input_octets: number;
  output_octets: number;
  session_time: number;
  started_at: string;
  updated_at: string;
  stopped_at: string | null;
  terminate_cause: string | null;
  active: boolean;
  site_id: string;
}

interface DisconnectReport {
  grant_revoked: boolean;
  disconnect: {
    status: string;
    sessions: { nas_id: string; acct_session_id: string; answer: string; error_cause?: string | null }[];
  };
}

const result = $('disconnect-result');

function line(text: string, tag: 'p' | 'li' | 'h2' = 'p'): HTMLElement {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

function report(user: string, answer: DisconnectReport, keep: boolean): void {
  const routers = answer.disconnect.sessions.map((s) =>
    line(
      t('sessions.answer', {
        router: s.nas_id,
        session: s.acct_session_id,
        answer: t(`answer.${s.answer}`, { cause: s.error_cause ?? '?' }),
      }),
      'li',
    ),
  );
  const list = document.createElement('ul');
  list.id = 'disconnect-answers';
  list.append(...routers);
  result.replaceChildren(
    line(t('sessions.result', { user }), 'h2'),
    line(t(answer.grant_revoked ? 'sessions.revoked' : keep ? 'sessions.kept' : 'sessions.notRevoked')),
    routers.length > 0 ? list : line(t('sessions.noSessions')),
  );
}

/** Disconnect and revoke (the spec's route), or disconnect only, keeping the paid time. */
async function disconnect(s: Session, keep: boolean): Promise<void> {
  const question = t(keep ? 'sessions.kickQuestion' : 'sessions.disconnectQuestion', { user: s.username });
  if (!(await askConfirm(question, t(keep ? 'sessions.kick' : 'sessions.disconnect')))) return;
  result.replaceChildren(line(t('sessions.disconnecting', { user: s.username })));
  show(result);
  result.focus();
  // Up to three tries 2 s apart per router: the answer may take a few seconds.
  const route = keep ? 'disconnect-keep-grant' : 'disconnect';
  const answer = await adminApi('POST', `/sessions/${encodeURIComponent(s.id)}/${route}`);
  if (ok(answer)) report(s.username, dataOf(answer) as DisconnectReport, keep);
  else result.replaceChildren(line(t('sessions.result', { user: s.username }), 'h2'), line(failure(answer)));
  result.focus();
  await reload();
}

/** `?router=<id>` (the devices page's link): only that router's sessions, with a way back to all. */
const router = new URLSearchParams(location.search).get('router');
if (router !== null && router !== '') {
  const all = new URL(location.href);
  all.searchParams.delete('router');
  const back = element('a', t('sessions.allRouters'));
  back.href = `${all.pathname}${all.search}`;
  const note = element('p', `${t('sessions.oneRouter')} `, 'hint');
  note.id = 'sessions-router';
  note.append(back);
  $('sessions').before(note);
}

const reload = filteredTable<Session>({
  id: 'sessions',
  path: '/sessions',
  ...(router !== null && router !== '' && { fixed: { router } }),
  searchHint: t('sessions.searchHint'),
  choices: [{ name: 'status', label: 'list.status', values: ['active', 'ended'] }],
  columns: [
    // Secondary facts under the main ones (the MAC under the guest, the address under the
    // router, the traffic under the time): the table fits 1440 px with its buttons.
    { head: 'sessions.user', cell: (s) => stacked(s.username, s.mac) },
    { head: 'sessions.router', cell: (s) => stacked(s.device_name ?? s.nas_id, s.framed_ip), words: true },
    {
      head: 'sessions.started',
      cell: (s) =>
        stacked(time(s.started_at), t('sessions.lastAt', { time: time(s.stopped_at ?? s.updated_at) })),
    },
    // The router counts from its side: input is what the guest sent, output what they received.
    {
      head: 'sessions.time',
      cell: (s) =>
        stacked(shortDuration(s.session_time), `${bytes(s.output_octets)} / ${bytes(s.input_octets)}`),
    },
    {
      head: 'sessions.state',
      cell: (s) =>
        s.active
          ? [badge('active', t('sessions.active'))]
          : [
              badge(
                'ended',
                s.terminate_cause
                  ? t('sessions.endedCause', { cause: s.terminate_cause })
                  : t('sessions.ended'),
              ),
            ],
    },
    ...siteColumn<Session>(),
  ],
  ...(can.disconnect && {
    actions: (s: Session): RowAction[] =>
      s.active
        ? [
            {
              label: t('sessions.kick'),
              aria: t('sessions.kickAria', { user: s.username, router: s.device_name ?? s.nas_id }),
              run: () => disconnect(s, true),
            },
            {
              label: t('sessions.disconnect'),
              aria: t('sessions.disconnectAria', { user: s.username, router: s.device_name ?? s.nas_id }),
              danger: true,
              run: () => disconnect(s, false),
            },
          ]
        : [],
  }),
});
