import { downSince, radiusSecretSource, type DeviceView } from './devices.js';

/**
 * A device as staff and the CLI see it: never its secrets, only whether it has a RADIUS secret of
 * its own (`own`) or uses RADIUS_SECRET (`global`), and whether a uam secret is set; and its
 * health (DESIGN.md §4.7): when its last RADIUS packet came, whether that makes it online, its
 * open sessions in lists, and since when it has been down when the router-down job said so.
 */
export function presentDevice(row: DeviceView): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    model: row.model,
    mac_address: row.mac_address,
    local_network: row.local_network,
    uam_server: row.uam_server,
    radius_nas_id: row.radius_nas_id,
    radius_client_ip: row.radius_client_ip,
    coa_port: row.coa_port,
    radius_secret_source: radiusSecretSource(row),
    uam_auth: row.uam_auth,
    has_uam_secret: row.uam_secret_enc !== null,
    require_message_authenticator: row.require_message_authenticator === 1,
    // null: the network's first address (docs/decisions/0023).
    gateway_ip: row.gateway_ip,
    // Remote routers (docs/decisions/0025): public values only; the router's private key never
    // leaves it, and the RadSec pin says only that a certificate was issued.
    tunnel_address: row.tunnel_address,
    tunnel_public_key: row.tunnel_public_key,
    radsec_certificate: row.radsec_cert_sha256 !== null,
    last_seen_at: row.last_seen_at,
    online: row.online,
    // Issue 21 (docs/decisions/0038): open sessions (lists only), and a reported outage.
    ...(row.live_sessions !== undefined && { live_sessions: row.live_sessions }),
    down_since: downSince(row),
    site_id: row.site_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    // docs/decisions/0037: when it was archived (RADIUS then treats it as unknown); null: not archived.
    archived_at: row.archived_at,
  };
}
