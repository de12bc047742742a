import type { WifiDeps } from './deps.js';
import type { DisconnectAnswer, SessionTarget } from './ports.js';
import {
  ADMIN_RESET,
  closeSession,
  selectLiveSessionsOfGrant,
  type LiveSessionRow,
} from './sessions.store.js';

/** What one session's router said, for the admin route and the CLI to report. */
export type SessionDisconnect = {
  sessionId: string;
  nasId: string;
  acctSessionId: string;
} & DisconnectAnswer;

/**
 * The routers' answers for the live sessions of a grant (or one session). `status` sums them
 * up: every session the same answer, `partial` when they differ, `no_sessions` when nothing was
 * online.
 */
export interface CoaOutcome {
  status: 'disconnected' | 'nak' | 'no_answer' | 'not_available' | 'partial' | 'no_sessions';
  sessions: SessionDisconnect[];
}

/** What a set of answers comes to: `ack` when every router acknowledged (said as the caller likes). */
export function summarise<Ack extends string>(
  answers: readonly DisconnectAnswer[],
  ack: Ack,
): Ack | Exclude<CoaOutcome['status'], 'disconnected'> {
  const kinds = new Set(answers.map((a) => a.answer));
  const [only] = kinds;
  if (only === undefined) return 'no_sessions';
  if (kinds.size > 1) return 'partial';
  return only === 'ack' ? ack : only;
}

export const toTarget = (s: LiveSessionRow): SessionTarget => ({
  sessionId: s.id,
  deviceId: s.device_id,
  nasId: s.radius_nas_id,
  username: s.username,
  acctSessionId: s.acct_session_id,
  framedIp: s.framed_ip,
  clientIp: s.radius_client_ip,
  coaPort: s.coa_port,
});

/**
 * Sends a Disconnect-Request for each session (in parallel: each waits on its own router). A
 * session the router confirms gone (ACK, or NAK "Session-Context-Not-Found") is closed here;
 * the router's Accounting-Stop, when it comes, adds the final counters. One the router keeps
 * reporting on a minute later opens again (sessions.store.ts `reopens`).
 */
export async function disconnectSessions(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  sessions: readonly LiveSessionRow[],
  reason: string,
): Promise<CoaOutcome> {
  const results = await Promise.all(
    sessions.map(async (s): Promise<SessionDisconnect> => {
      const answer = await deps.coa.disconnect(toTarget(s));
      const gone =
        answer.answer === 'ack' ||
        (answer.answer === 'nak' && answer.errorCause === 'Session-Context-Not-Found');
      if (gone) await closeSession(deps.db, s.id, deps.clock.now().toISOString(), ADMIN_RESET);
      deps.log.info(
        { event: 'session.disconnect', session_id: s.id, nas_id: s.radius_nas_id, reason, ...answer },
        'disconnect requested',
      );
      return { sessionId: s.id, nasId: s.radius_nas_id, acctSessionId: s.acct_session_id, ...answer };
    }),
  );
  return { status: summarise(results, 'disconnected'), sessions: results };
}

/** Disconnects every live session of a grant. */
export async function disconnectGrant(
  deps: Pick<WifiDeps, 'db' | 'clock' | 'coa' | 'log'>,
  grantId: string,
  reason: string,
): Promise<CoaOutcome> {
  return disconnectSessions(deps, await selectLiveSessionsOfGrant(deps.db, grantId), reason);
}
