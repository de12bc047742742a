import type { Generated } from 'kysely';

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
  /** 0/1 (migration 0022): the router may log a device back in by its MAC while the grant lasts. */
  remember_device: number;
  /** When it was archived (migration 0034); null: not archived. An archived plan is inactive. */
  archived_at: string | null;
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
  /** When it was archived (migration 0034); null: not archived. RADIUS then treats it as unknown. */
  archived_at: string | null;
  /**
   * Its `last_seen_at` when the router-down job reported it silent with guests on it (migration
   * 0035, docs/decisions/0038); null: no outage reported, or re-armed since it was heard again.
   */
  down_since: string | null;
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
  /** How it was paid (migration 0021): see SaleChannel. */
  channel: string;
  /** Who sold it at the counter (users.id, or the CLI's label); null for the portal's sales. */
  sold_by: string | null;
  /**
   * The portal language the guest bought in (`en`, `sw`: wifi/language.ts), for the messages the
   * guest gets; null: not known (bought before migration 0023, or not through the portal).
   */
  language: string | null;
  /**
   * The mobile-money network the guest named (wifi/networks.ts; migration 0030); null: not named,
   * the provider or the number's prefix decides.
   */
  network: string | null;
  /** When a staff member recorded its refund (migration 0033); null: not refunded. Status stays 'paid'. */
  refunded_at: string | null;
  /**
   * The router (devices.id) on which the sale's guest first came online: the router of its grant's
   * first RADIUS session, set when that session is recorded (migration 0040); null: none yet.
   */
  first_device_id: string | null;
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
  /** How it was paid (migration 0021): see SaleChannel; the invoice's channel. */
  channel: string;
  /**
   * 'sale' | 'refund' (migration 0033): a refund is the sale's money going back, with the negative
   * amount; unique per invoice and kind. Every sum of amount_tzs is the money kept.
   */
  kind: string;
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

/**
 * An SMS the box sent through the gateway: one a staff member sent (POST /api/v1/admin/messages)
 * and, since migration 0036, every other (credentials, reminders, account codes) with its text as
 * recorded (secrets blanked).
 */
export interface SmsMessagesTable {
  id: string;
  /** E.164 */
  recipient: string;
  message: string;
  sender_id: string;
  /** 'sending' (asked, no answer yet) | 'accepted' (the gateway took it) | 'failed' */
  status: string;
  provider: string;
  provider_reference: string | null;
  error: string | null;
  sent_by: string | null;
  created_at: string;
  /** 'staff' | 'credentials' | 'reminder_ends' | 'reminder_data' | 'code' | 'reset' | 'other' (0036) */
  kind: Generated<string>;
  /** Times the gateway was asked (0036). */
  attempts: Generated<number>;
  site_id: string | null;
  /** The message a retry belongs to (0036): `reminder_ends:<grant id>`. */
  log_key: string | null;
  updated_at: string | null;
}

/** One staff action on Wi-Fi data (migration 0021): who, what, when, before and after. */
export interface WifiAuditTable {
  id: string;
  created_at: string;
  /** users.id of the staff member; null for the CLI. */
  actor_id: string | null;
  /** Who, fit to show: the staff member's email or name, or `cli:<os user>`. */
  actor: string;
  /** `<target>.<verb>`, e.g. `grant.extend` (wifi/audit.ts lists them). */
  action: string;
  target_type: string;
  target_id: string;
  site_id: string | null;
  reason: string | null;
  /** JSON of the record before and after the change; null where there is no before (created) or after (deleted). */
  before: string | null;
  after: string | null;
}

/** One `vouchers create` run (migrations 0022, 0047). */
export interface VoucherBatchesTable {
  id: string;
  plan_id: string;
  /** The plan's site when the batch was made. */
  site_id: string;
  count: number;
  prefix: string;
  code_length: number;
  /** Codes may be redeemed until this instant (ISO-8601); null: no limit. */
  valid_until: string | null;
  /** Who made it: the staff member's email or name, or `cli:<os user>`. */
  created_by: string;
  created_at: string;
  revoked_at: string | null;
  /**
   * The plan's terms when the batch was made (migration 0047; batches made before it: the plan's
   * terms when it ran): what its cards print and what a redemption gives and costs, whatever the
   * plan says later (docs/decisions/0027-vouchers.md). Null data or speed: no limit.
   */
  price_tzs: number;
  duration_seconds: number;
  data_limit_bytes: number | null;
  max_devices: number;
  download_kbps: number | null;
  upload_kbps: number | null;
}

/**
 * One voucher code (migrations 0022, 0029): found only by the keyed digest of the normalised
 * code; the code itself is nowhere (0029 dropped the sealed copy 0022 kept for printing).
 */
export interface VouchersTable {
  id: string;
  batch_id: string;
  /** Vault HMAC (hex) of the normalised code; unique. */
  code_hash: string;
  /** The code's last three characters. */
  last3: string;
  /** 'unused' | 'redeemed' | 'revoked'; an unused code past valid_until reads as 'expired'. */
  status: string;
  valid_until: string | null;
  redeemed_at: string | null;
  invoice_id: string | null;
  grant_id: string | null;
  revoked_at: string | null;
}

/** A device (MAC) that logged in with a grant whose plan remembers devices (migration 0022). */
export interface RememberedDevicesTable {
  grant_id: string;
  /** AA:BB:CC:DD:EE:FF */
  mac: string;
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
  wifi_audit: WifiAuditTable;
  voucher_batches: VoucherBatchesTable;
  vouchers: VouchersTable;
  remembered_devices: RememberedDevicesTable;
}
