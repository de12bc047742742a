import { messageOf, type ApiResult } from './api.js';
import { $, busy, clearErrors, clearOnInput, fieldError, fill, formError, pageData } from './dom.js';

/** What the identity pages share: their strings, `next`, form wiring and error placement. */

export const data = pageData() as { strings: Readonly<Record<string, string>>; next?: string } & Record<
  string,
  unknown
>;

export const t = (key: string, vars?: Readonly<Record<string, string | number>>): string =>
  fill(data.strings[key] ?? key, vars);

/** Submit → errors cleared → button busy → handler; the form never reloads the page. */
export function onSubmit(id: string, handler: (form: HTMLFormElement) => Promise<void>): HTMLFormElement {
  const form = $(id, HTMLFormElement);
  clearOnInput(form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearErrors(form);
    const button = form.querySelector('button[type="submit"]');
    if (button instanceof HTMLButtonElement) busy(button, true);
    void handler(form).finally(() => {
      if (button instanceof HTMLButtonElement) busy(button, false);
    });
  });
  return form;
}

/** The trimmed value of a field, or null (with "required" shown next to it) when it is empty. */
export function requiredValue(id: string): string | null {
  const input = $(id, HTMLInputElement);
  const text = input.id.includes('password') ? input.value : input.value.trim();
  if (text !== '') return text;
  fieldError(input, t('common.required'));
  input.focus();
  return null;
}

/**
 * An API error where it belongs: next to the field its message is about (`fields` maps a part
 * of the API's message to a field id), else under the form.
 */
export function apiError(
  form: HTMLFormElement,
  result: ApiResult,
  fields: Readonly<Record<string, string>> = {},
): void {
  if (result.status === 0) {
    formError(form, t('common.network'));
    return;
  }
  const message = messageOf(result) || t(result.status === 429 ? 'common.tooMany' : 'common.network');
  const target = Object.entries(fields).find(([part]) => message.includes(part))?.[1];
  if (target === undefined) {
    formError(form, message);
    return;
  }
  const input = $(target);
  fieldError(input, message);
  input.focus();
}
