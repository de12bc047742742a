import type { PlanRow } from './plans.store.js';

const basics = (row: PlanRow) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  price_tzs: row.price_tzs,
  duration_seconds: row.duration_seconds,
});

/**
 * Plan (public), wifi-access-api.md §2: data_limit_bytes only when the plan has one; likewise the
 * speed limits of DESIGN.md §4.7, each only when set.
 */
export function presentPublicPlan(row: PlanRow): Record<string, unknown> {
  return {
    ...basics(row),
    ...(row.data_limit_bytes === null ? {} : { data_limit_bytes: row.data_limit_bytes }),
    ...(row.download_kbps === null ? {} : { download_kbps: row.download_kbps }),
    ...(row.upload_kbps === null ? {} : { upload_kbps: row.upload_kbps }),
  };
}

/** A plan as staff and the CLI see it. */
export function presentPlan(row: PlanRow): Record<string, unknown> {
  return {
    ...basics(row),
    data_limit_bytes: row.data_limit_bytes,
    active: row.active === 1,
    sort_order: row.sort_order,
    max_devices: row.max_devices,
    download_kbps: row.download_kbps,
    upload_kbps: row.upload_kbps,
    remember_device: row.remember_device === 1,
    site_id: row.site_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    // docs/decisions/0037: when it was archived; null: not archived.
    archived_at: row.archived_at,
  };
}
