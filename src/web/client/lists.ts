import { api, dataOf, messageOf } from './api.js';
import { $, show } from './dom.js';
import { t } from './forms.js';

/** The account page's lists: fetched from the API, each row with an optional action button. */

const when = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
export const time = (iso: string): string => when.format(new Date(iso));

export interface Row {
  text: string;
  detail?: string;
  action?: { label: string; aria: string; run: () => Promise<void> };
}

// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the API's row type here
export async function fillList<T>(id: string, path: string, row: (item: T) => Row): Promise<void> {
  const list = $(id);
  const error = $(`${id}-error`);
  const result = await api('GET', path);
  show(error, result.status !== 200);
  if (result.status !== 200) {
    error.textContent = messageOf(result) || t('account.loadFailed');
    return;
  }
  const items = dataOf(result) as T[];
  if (items.length === 0) {
    const li = document.createElement('li');
    li.textContent = t('account.none');
    list.replaceChildren(li);
    return;
  }
  list.replaceChildren(...items.map((item) => rowElement(row(item), error)));
}

function rowElement(row: Row, error: HTMLElement): HTMLLIElement {
  const li = document.createElement('li');
  const text = document.createElement('span');
  text.textContent = row.text;
  if (row.detail) {
    const small = document.createElement('span');
    small.className = 'hint';
    small.textContent = ` ${row.detail}`;
    text.append(document.createElement('br'), small);
  }
  li.append(text);
  const action = row.action;
  if (action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'danger';
    button.textContent = action.label;
    button.setAttribute('aria-label', action.aria);
    button.addEventListener('click', () => {
      button.disabled = true;
      show(error, false);
      void action.run().finally(() => {
        button.disabled = false;
      });
    });
    li.append(button);
  }
  return li;
}

/** DELETE something, then refresh its list; an error lands under the list. */
export async function removeThen(id: string, path: string, refresh: () => Promise<void>): Promise<boolean> {
  const result = await api('DELETE', path);
  if (result.status !== 200) {
    const error = $(`${id}-error`);
    error.textContent = messageOf(result) || t('common.network');
    show(error);
    return false;
  }
  await refresh();
  return true;
}
