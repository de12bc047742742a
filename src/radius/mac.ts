/**
 * Calling-Station-Id as AA:BB:CC:DD:EE:FF. CoovaChilli writes AA-BB-CC-DD-EE-FF, MikroTik
 * AA:BB:CC:DD:EE:FF, some routers aabb.ccdd.eeff or bare hex; anything else is not a MAC (null).
 */
export function normaliseMac(value: string | undefined): string | null {
  if (value === undefined) return null;
  const hex = value.trim().replace(/[-:.]/g, '');
  if (!/^[0-9a-fA-F]{12}$/.test(hex)) return null;
  return hex.toUpperCase().replace(/(..)(?!$)/g, '$1:');
}
