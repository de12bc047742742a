/**
 * A tiny escaping template: `html\`<p>${text}</p>\`` escapes every interpolated value unless it
 * is already Html (a fragment built the same way) or an array of them. Pages are built only
 * from these, so user data can never become markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

function piece(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number' || value === true) return String(value);
  return '';
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

/** JSON inside `<script type="application/json">`: `<` escaped so no `</script>` can end it early. */
export const jsonForScript = (value: unknown): Html =>
  new Html(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );
