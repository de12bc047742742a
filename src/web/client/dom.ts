/** Small DOM helpers shared by the pages. */

/** The element with this id (of this kind); a missing one is a bug in the page, so it throws. */
export function $(id: string): HTMLElement;
export function $<T extends HTMLElement>(id: string, kind: new () => T): T;
export function $(id: string, kind: new () => HTMLElement = HTMLElement): HTMLElement {
  const el = document.getElementById(id);
  if (!(el instanceof kind)) throw new Error(`#${id} is missing`);
  return el;
}

/** The JSON the server put in the page's data block. */
export const pageData = (): unknown => JSON.parse($('page-data').textContent || '{}');

export function show(el: HTMLElement, visible = true): void {
  el.hidden = !visible;
}

/** `Hello {name}` with `{name}` filled in. */
export const fill = (template: string, vars: Readonly<Record<string, string | number>> = {}): string =>
  template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in vars ? String(vars[key]) : whole));

/** Shows `message` under the field (or clears it), wiring aria-invalid for screen readers. */
export function fieldError(input: HTMLElement, message: string | null): void {
  const slot = document.getElementById(`${input.id}-error`);
  if (slot) {
    slot.textContent = message ?? '';
    slot.hidden = message === null;
  }
  if (message === null) input.removeAttribute('aria-invalid');
  else input.setAttribute('aria-invalid', 'true');
}

/** Clears every field error and the form's own error line. */
export function clearErrors(form: HTMLFormElement): void {
  for (const input of form.querySelectorAll<HTMLElement>('[aria-invalid]')) fieldError(input, null);
  const own = document.getElementById(`${form.id}-error`);
  if (own) {
    own.textContent = '';
    own.hidden = true;
  }
}

/** A field's error goes away as soon as the person edits the field. */
export function clearOnInput(form: HTMLFormElement): void {
  form.addEventListener('input', (event) => {
    if (event.target instanceof HTMLElement && event.target.hasAttribute('aria-invalid'))
      fieldError(event.target, null);
  });
}

/** An error that belongs to the whole form (shown under its submit button). */
export function formError(form: HTMLFormElement, message: string): void {
  const slot = $(`${form.id}-error`);
  slot.textContent = message;
  slot.hidden = false;
}

export function busy(button: HTMLButtonElement, on: boolean): void {
  button.disabled = on;
  if (on) button.setAttribute('aria-busy', 'true');
  else button.removeAttribute('aria-busy');
}

export const value = (id: string): string => $(id, HTMLInputElement).value;

/**
 * Where to go after signing in: only a path on this origin (the server checked it when it
 * rendered the page; this repeats the check right before navigating). Same rules as
 * src/lib/next.ts safeNext.
 */
export function safeNext(raw: string | null | undefined, fallback = '/account'): string {
  if (!raw || raw.length > 4096 || !raw.startsWith('/') || raw.startsWith('//')) return fallback;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return fallback;
  try {
    const url = new URL(raw, location.origin);
    // `/.//host` parses to the path `//host`, which a browser would read as another host.
    return url.origin === location.origin && !url.pathname.startsWith('//')
      ? `${url.pathname}${url.search}${url.hash}`
      : fallback;
  } catch {
    return fallback;
  }
}

export const go = (url: string): void => {
  location.assign(url);
};
