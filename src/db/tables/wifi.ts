/** Wi-Fi access: plans, routers, invoices, payments and access grants (migration 0003). */

export interface PlansTable {
  id: string;
  name: string;
  description: string;
  price_tzs: number;
  duration_seconds: number;
  data_limit_bytes: number | null;
  /** 0/1 */
  active: number;
  sort_order: number;
  /** Simultaneous-use limit: devices one grant may have online at once (migration 0010). */
  max_devices: number;
  /** Speed limit in kbit/s (download: to the guest; upload: from the guest), or null (migration 0017). */
  download_kbps: number | null;
  upload_kbps: number | null;
  /** The site it belongs to (migration 0019): `sites.id`, kept valid in code (wifi/sites.ts). */
  site_id: string;
  created_at: string;
  updated_at: string;
}

export interface DevicesTable {
  id: string;
  name: string;
  model: string;
  /** AA:BB:CC:DD:EE:FF */
  mac_address: string;
  /** IPv4 CIDR, network address form (10.1.0.0/24) */
  local_network: string;
  uam_server: string;
  radius_nas_id: string;
  radius_client_ip: string;
  coa_port: number;
  /** AES-256-GCM sealed (lib/vault.ts); RADIUS needs the cleartext. NULL: RADIUS_SECRET applies. */
  radius_secret_enc: string | null;
  uam_secret_enc: string | null;
  /** 'chap' | 'pap': how uam-login encodes the password for this router. */
  uam_auth: string;
  /** 0/1: 0 lets a legacy router omit Message-Authenticator. */
  require_message_authenticator: number;
  created_at: string;
  updated_at: string;
  /** When its last valid RADIUS packet arrived (migration 0017); null: never. */
  last_seen_at: string | null;
  /**
   * Its own address on the guest network (CoovaChilli's uamlisten, the MikroTik hotspot address):
   * where the portal may send guests' logins (migration 0017). Null: the network's first address.
   */
  gateway_ip: string | null;
  /**
   * Remote routers (migration 0020, docs/decisions/0025): its address inside the WireGuard tunnel
   * (null: not remote over WireGuard) and its WireGuard public key (null: not known yet).
   */
  tunnel_address: string | null;
  tunnel_public_key: string | null;
  /** SHA-256 fingerprint (`AB:CD:…`) of the RadSec client certificate issued to it last; null: none. */
  radsec_cert_sha256: string | null;
  /** The site it belongs to (migration 0019): `sites.id`, kept valid in code (wifi/sites.ts). */
  site_id: string;
}

export interface InvoicesTable {
  id: string;
  /** <INVOICE_PREFIX>-<6 digits>-<8 chars> */
  number: string;
  sequence: number;
  plan_id: string;
  /** E.164 */
  phone: string;
  amount_tzs: number;
  /** The plan's terms when the guest bought it; the grant gets these. */
  duration_seconds: number;
  data_limit_bytes: number | null;
  max_devices: number;
  /** Speed limit in kbit/s (download: to the guest; upload: from the guest), or null (migration 0017). */
  download_kbps: number | null;
  upload_kbps: number | null;
  /** 'pending' | 'paid' | 'failed' | 'expired' */
  status: string;
  /** SHA-256 (hex) of the purchase key (the Idempotency-Key). */
  purchase_key_hash: string;
  provider: string;
  provider_reference: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  paid_at: string | null;
  /** The site of its plan when it was sold (migration 0019). */
  site_id: string;
  /**
   * The portal language the guest bought in (`en`, `sw`: wifi/language.ts), for the messages the
   * guest gets; null: not known (bought before migration 0023, or not through the portal).
   */
  language: string | null;
}

/** Which invoice a purchase key currently stands for; the primary key is the idempotency guard. */
export interface PurchaseKeysTable {
  key_hash: string;
  invoice_id: string;
  created_at: string;
  updated_at: string;
}

export interface GrantsTable {
  id: string;
  invoice_id: string;
  username: string;
  /** AES-256-GCM sealed: CHAP and the poll endpoint need the cleartext. */
  password_enc: string;
  data_limit_bytes: number | null;
  /** Simultaneous-use limit, from the plan at purchase time. */
  max_devices: number;
  /** Speed limit in kbit/s (download: to the guest; upload: from the guest), or null (migration 0017). */
  download_kbps: number | null;
  upload_kbps: number | null;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoke_reason: string | null;
  /** When expireDue handled the grant's expiry (disconnects sent once). */
  ended_at: string | null;
  /**
   * When the reminder job claimed the grant's SMS reminder 10 minutes before its end, and the one
   * at 80 % of its data allowance (migration 0023); null: not (yet) sent. See wifi/reminders.ts.
   */
  end_reminder_at: string | null;
  data_reminder_at: string | null;
}

export interface PaymentsTable {
  id: string;
  invoice_id: string;
  provider: string;
  provider_reference: string | null;
  amount_tzs: number;
  phone: string | null;
  event_id: string;
  paid_at: string;
}

/** Every payment event acted on, unique per provider and event id (de-duplication). */
export interface PaymentEventsTable {
  id: string;
  provider: string;
  event_id: string;
  type: string;
  invoice_number: string;
  /** What settlement did: 'paid' | 'already_paid' | 'failed' | 'ignored' */
  outcome: string;
  received_at: string;
}

/** A staff member's admin UI session (the admin_session cookie), 12 hours, stored hashed. */
export interface AdminSessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  ip_address: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
}

/** An SMS a staff member sent through the gateway (POST /api/v1/admin/messages). */
export interface SmsMessagesTable {
  id: string;
  /** E.164 */
  recipient: string;
  message: string;
  sender_id: string;
  /** 'accepted' (the gateway took it) | 'failed' */
  status: string;
  provider: string;
  provider_reference: string | null;
  error: string | null;
  sent_by: string | null;
  created_at: string;
}

export interface WifiTables {
  plans: PlansTable;
  devices: DevicesTable;
  invoices: InvoicesTable;
  purchase_keys: PurchaseKeysTable;
  grants: GrantsTable;
  payments: PaymentsTable;
  payment_events: PaymentEventsTable;
  admin_sessions: AdminSessionsTable;
  sms_messages: SmsMessagesTable;
}
