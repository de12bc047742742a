import { api, dataOf } from './api.js';
import { $, go, show } from './dom.js';
import { apiError, onSubmit, t } from './forms.js';
import { fillList, removeThen, time } from './lists.js';
import { initSecurity } from './account-security.js';

/** /account: profile, sessions, connected apps, activity (MFA and passkeys: account-security). */

interface Session {
  id: string;
  device_label: string | null;
  ip_address: string;
  last_used_at: string;
  is_current: boolean;
}
interface Connection {
  client_id: string;
  client_name: string;
  scope: string;
  granted_at: string;
}
interface SecurityEvent {
  action: string;
  ip_address: string | null;
  detail: string;
  created_at: string;
}

const loadSessions = (): Promise<void> =>
  fillList<Session>('sessions', '/sessions', (s) => ({
    text: [s.device_label, s.ip_address, s.is_current ? `(${t('account.thisDevice')})` : null]
      .filter(Boolean)
      .join(' · '),
    detail: t('account.lastUsed', { time: time(s.last_used_at) }),
    action: {
      label: t('account.revoke'),
      aria: `${t('account.revoke')}: ${s.ip_address}${s.is_current ? ` (${t('account.thisDevice')})` : ''}`,
      run: async () => {
        // Revoking this browser's own session is a logout.
        if (
          (await removeThen('sessions', `/sessions/${encodeURIComponent(s.id)}`, loadSessions)) &&
          s.is_current
        )
          go('/login');
      },
    },
  }));

const loadApps = (): Promise<void> =>
  fillList<Connection>('apps', '/connections', (c) => ({
    text: c.client_name,
    detail: `${t('account.since', { time: time(c.granted_at) })} · ${c.scope}`,
    action: {
      label: t('account.disconnect'),
      aria: `${t('account.disconnect')}: ${c.client_name}`,
      run: async () => {
        await removeThen('apps', `/connections/${encodeURIComponent(c.client_id)}`, loadApps);
        await loadEvents();
      },
    },
  }));

const loadEvents = (): Promise<void> =>
  fillList<SecurityEvent>('events', '/auth/security-events', (e) => ({
    text: [t(`event.${e.action}`), e.detail].filter(Boolean).join(': '),
    detail: [time(e.created_at), e.ip_address].filter(Boolean).join(' · '),
  }));

async function loadProfile(): Promise<void> {
  const result = await api('GET', '/profile');
  if (result.status !== 200) return;
  const profile = dataOf(result) as { display_name: string; avatar_url: string | null };
  $('display-name', HTMLInputElement).value = profile.display_name;
  $('avatar-url', HTMLInputElement).value = profile.avatar_url ?? '';
}

onSubmit('profile', async (form) => {
  show($('profile-saved'), false);
  const result = await api('PATCH', '/profile', {
    display_name: $('display-name', HTMLInputElement).value.trim(),
    avatar_url: $('avatar-url', HTMLInputElement).value.trim(),
  });
  if (result.status === 200) show($('profile-saved'));
  else apiError(form, result, { 'display name': 'display-name', avatar_url: 'avatar-url' });
});

$('sign-out').addEventListener('click', () => {
  void api('POST', '/auth/logout').then(() => {
    go('/login');
  });
});

initSecurity(loadEvents);
void Promise.all([loadProfile(), loadSessions(), loadApps(), loadEvents()]);
