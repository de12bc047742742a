/**
 * Admin collections return at most 200 rows, with no paging (wifi-access-api.md §4.3, §8). The
 * CLI's configuration lists (plans, devices) show every row; see docs/decisions/0007-admin-api.md.
 */
export const ADMIN_LIST_LIMIT = 200;
