import { maskPhone } from './reports.js';
import type { StaffPrincipal } from './staff.js';

/**
 * Rows of an admin list as the staff member may see them: a viewer sees guests' phones only by
 * their last 3 digits (README "See how the venue is doing"), in the list and its CSV alike, as
 * the top-guests report and the SMS log show them. Rows without a `phone` pass as they are.
 */
export function phonesFor<T extends object>(
  principal: Pick<StaffPrincipal, 'role'>,
  rows: readonly T[],
): T[] {
  if (principal.role !== 'viewer') return [...rows];
  return rows.map((row) => {
    const phone = (row as { phone?: unknown }).phone;
    return typeof phone === 'string' && phone !== '' ? { ...row, phone: maskPhone(phone) } : row;
  });
}
