import type { ListedSessionRow } from './sessions.store.js';

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
  };
}
