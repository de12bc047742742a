const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Parses a duration given as whole seconds ("90") or a number with a unit ("30m", "1h", "7d").
 * Returns seconds; throws RangeError on anything else.
 */
export function parseDuration(input: string): number {
  const match = /^(\d{1,9})([smhd]?)$/.exec(input.trim());
  if (!match) throw new RangeError(`invalid duration "${input}" (use seconds or 30m, 1h, 7d)`);
  const [, amount = '', unit = ''] = match;
  return Number(amount) * (unit ? (UNIT_SECONDS[unit] ?? 1) : 1);
}

/** Formats seconds as a compact human duration: 5400 → "1h 30m". */
export function formatDuration(seconds: number): string {
  if (seconds <= 0) return '0s';
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join(' ');
}
