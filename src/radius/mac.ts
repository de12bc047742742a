const SEPARATORS = /[-:.]/g;
const TWELVE_HEX = /^[0-9A-F]{12}$/;

/**
 * Calling-Station-Id as AA:BB:CC:DD:EE:FF. CoovaChilli writes AA-BB-CC-DD-EE-FF, MikroTik
 * AA:BB:CC:DD:EE:FF, some routers aabb.ccdd.eeff or bare hex; anything else is not a MAC (null).
 */
export function normaliseMac(value: string | undefined): string | null {
  if (value === undefined) return null;
  const hex = value.trim().replace(SEPARATORS, '').toUpperCase();
  if (!TWELVE_HEX.test(hex)) return null;
  // Every RADIUS login asks: slices instead of a second regular expression.
  return `${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}:${hex.slice(6, 8)}:${hex.slice(8, 10)}:${hex.slice(10)}`;
}
