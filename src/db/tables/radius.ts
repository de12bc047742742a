/** RADIUS accounting sessions and the listener's counters (migration 0010). */

export interface RadiusSessionsTable {
  id: string;
  device_id: string;
  /** Acct-Session-Id as the router sent it; unique per device. */
  acct_session_id: string;
  username: string;
  /** The access grant of `username` when the session was first seen; null for unknown users. */
  grant_id: string | null;
  framed_ip: string | null;
  /** Calling-Station-Id normalised to AA:BB:CC:DD:EE:FF when it is a MAC address. */
  mac: string | null;
  /** 64-bit totals: Acct-*-Gigawords × 2^32 + Acct-*-Octets (input = from the guest). */
  input_octets: number;
  output_octets: number;
  /** Acct-Session-Time, seconds. */
  session_time: number;
  started_at: string;
  /** When the last accounting packet for it arrived (stale sessions are judged by it). */
  updated_at: string;
  stopped_at: string | null;
  /** Acct-Terminate-Cause, or how we closed it: Accounting-On/Off, Stale, Admin-Reset. */
  terminate_cause: string | null;
  /**
   * The octets once the session is closed, null while it is open (migration 0046): what the usage
   * report reads from an index, which no Interim-Update of an open session changes.
   */
  final_input_octets: number | null;
  final_output_octets: number | null;
}

/** Cumulative counters of the RADIUS listener, flushed by the daemon (shown by `status`). */
export interface RadiusCountersTable {
  name: string;
  value: number;
  updated_at: string;
}

export interface RadiusTables {
  radius_sessions: RadiusSessionsTable;
  radius_counters: RadiusCountersTable;
}
