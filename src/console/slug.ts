export const SLUG_MAX = 40;

/** "Café Büro — Staff App" → "cafe-buro-staff-app"; at most 40 characters, never empty. */
export function slugify(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, SLUG_MAX)
    .replace(/-+$/, '');
  return base === '' ? 'project' : base;
}

/** The n-th candidate for a slug: base, base-2, base-3 …, cut so it still fits in 40 characters. */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${String(n)}`;
  return `${base.slice(0, SLUG_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
}
