/**
 * The languages guests are spoken to in: the captive portal's (web/strings has a table of each)
 * and so the SMS a guest gets. The first is the fallback.
 */
export const GUEST_LANGUAGES = ['en', 'sw'] as const;
export type GuestLanguage = (typeof GUEST_LANGUAGES)[number];

const FALLBACK: GuestLanguage = GUEST_LANGUAGES[0];

const isGuestLanguage = (value: string | null | undefined): value is GuestLanguage =>
  (GUEST_LANGUAGES as readonly (string | null | undefined)[]).includes(value);

/** A stored language as one we speak; anything else (null: not known) falls back to English. */
export const guestLanguageOr = (stored: string | null): GuestLanguage =>
  isGuestLanguage(stored) ? stored : FALLBACK;

/**
 * The language an Accept-Language header prefers among ours (its order and q-values; `sw-TZ`
 * counts as `sw`), English when it names none. The portal page is served in it, and the portal
 * sends the language the guest chose as the header of its purchase request.
 */
export function guestLanguage(header: string | undefined): GuestLanguage {
  const ranked = (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = Number(
        params
          .find((p) => p.trim().startsWith('q='))
          ?.trim()
          .slice(2) ?? '1',
      );
      return { lang: tag.split('-')[0], q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((x) => x.q > 0 && isGuestLanguage(x.lang))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return guestLanguageOr(ranked[0]?.lang ?? null);
}
