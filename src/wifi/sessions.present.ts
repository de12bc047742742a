import type { CoaOutcome, SessionDisconnect } from './disconnect.js';
import type { ListedSessionRow, SessionRow } from './sessions.store.js';
import type { SpeedChangeOutcome } from './speed.js';

/** A RADIUS session as staff and the CLI see it; octet totals are 64-bit (gigawords folded in). */
export function presentSession(row: ListedSessionRow): Record<string, unknown> {
  return {
    id: row.id,
    device_id: row.device_id,
    device_name: row.device_name,
    nas_id: row.radius_nas_id,
    acct_session_id: row.acct_session_id,
    username: row.username,
    grant_id: row.grant_id,
    framed_ip: row.framed_ip,
    mac: row.mac,
    input_octets: row.input_octets,
    output_octets: row.output_octets,
    session_time: row.session_time,
    started_at: row.started_at,
    updated_at: row.updated_at,
    stopped_at: row.stopped_at,
    terminate_cause: row.terminate_cause,
    active: row.stopped_at === null,
    site_id: row.site_id,
  };
}

/**
 * The outcome of a staff disconnect (admin API and CLI): whether the session's grant was revoked,
 * and each router's answer to its Disconnect-Request (`ack`, `nak` with the Error-Cause when the
 * router gave one, `no_answer`, or `not_available` without a RADIUS CoA client).
 */
export function presentDisconnect(result: {
  session: SessionRow;
  grantRevoked: boolean;
  disconnect: CoaOutcome;
}): DisconnectReport {
  return {
    session_id: result.session.id,
    grant_id: result.session.grant_id,
    grant_revoked: result.grantRevoked,
    disconnect: { status: result.disconnect.status, sessions: presentAnswers(result.disconnect.sessions) },
  };
}

/** Each router's answer about one session (Disconnect- or CoA-Request). */
export const presentAnswers = (sessions: readonly SessionDisconnect[]): RouterAnswer[] =>
  sessions.map((s) => ({
    session_id: s.sessionId,
    nas_id: s.nasId,
    acct_session_id: s.acctSessionId,
    answer: s.answer,
    ...(s.answer === 'nak' && { error_cause: s.errorCause }),
  }));

export interface RouterAnswer {
  session_id: string;
  nas_id: string;
  acct_session_id: string;
  answer: SessionDisconnect['answer'];
  error_cause?: string | null;
}

/** The outcome of applying a plan's speed to its live grants (admin API and CLI). */
export const presentSpeedChange = (outcome: SpeedChangeOutcome) => ({
  grants_updated: outcome.grants,
  status: outcome.status,
  sessions: presentAnswers(outcome.sessions),
});

export interface DisconnectReport {
  session_id: string;
  grant_id: string | null;
  grant_revoked: boolean;
  disconnect: { status: CoaOutcome['status']; sessions: RouterAnswer[] };
}
