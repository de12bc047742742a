import { html, type Html } from './html.js';

/**
 * The admin forms' fields beyond forms.ts `field`: a number with its unit, a text area, a
 * choice and a check box. Each has a label, its hint and an error slot (`<id>-error`) tied to
 * it with aria-describedby, like `field`.
 */

const describedBy = (id: string, hint: string | undefined): string =>
  [hint ? `${id}-hint` : '', `${id}-error`].filter(Boolean).join(' ');

const hintAndError = (id: string, hint: string | undefined): Html =>
  html`${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ''}
    <p class="error" id="${id}-error" hidden></p>`;

const options = (choices: readonly (readonly [string, string])[], selected: string | undefined): Html[] =>
  choices.map(
    ([value, label]) =>
      html`<option value="${value}" ${value === selected ? html` selected` : ''}>${label}</option>`,
  );

/** A whole number typed on a phone's number pad (type=text: no spinner, no silent rounding). */
export function numberField(o: {
  id: string;
  label: string;
  hint?: string;
  value?: string;
  required?: boolean;
  signed?: boolean;
}): Html {
  return html`<div class="field">
    <label for="${o.id}">${o.label}</label>
    <input
      id="${o.id}"
      name="${o.id}"
      type="text"
      inputmode="${o.signed ? 'text' : 'numeric'}"
      autocomplete="off"
      ${o.value ? html` value="${o.value}"` : ''}${o.required === false ? '' : html` required`}
      aria-describedby="${describedBy(o.id, o.hint)}"
    />
    ${hintAndError(o.id, o.hint)}
  </div>`;
}

/** A number and its unit side by side (duration in minutes/hours/days, data in MB/GB). */
export function unitField(o: {
  id: string;
  label: string;
  unitLabel: string;
  units: readonly (readonly [string, string])[];
  unit: string;
  hint?: string;
  required?: boolean;
}): Html {
  return html`<div class="field">
    <label for="${o.id}">${o.label}</label>
    <div class="unit-row">
      <input
        id="${o.id}"
        name="${o.id}"
        type="text"
        inputmode="decimal"
        autocomplete="off"
        ${o.required === false ? '' : html` required`}
        aria-describedby="${describedBy(o.id, o.hint)}"
      />
      <select id="${o.id}-unit" name="${o.id}-unit" aria-label="${o.unitLabel}">
        ${options(o.units, o.unit)}
      </select>
    </div>
    ${hintAndError(o.id, o.hint)}
  </div>`;
}

export function textArea(o: {
  id: string;
  label: string;
  hint?: string;
  rows?: number;
  required?: boolean;
}): Html {
  return html`<div class="field">
    <label for="${o.id}">${o.label}</label>
    <textarea
      id="${o.id}"
      name="${o.id}"
      rows="${o.rows ?? 3}"
      ${o.required ? html` required` : ''}
      aria-describedby="${describedBy(o.id, o.hint)}"
    ></textarea>
    ${hintAndError(o.id, o.hint)}
  </div>`;
}

export function choice(o: {
  id: string;
  label: string;
  choices: readonly (readonly [string, string])[];
  selected?: string;
  hint?: string;
}): Html {
  return html`<div class="field">
    <label for="${o.id}">${o.label}</label>
    <select id="${o.id}" name="${o.id}" aria-describedby="${describedBy(o.id, o.hint)}">
      ${options(o.choices, o.selected)}
    </select>
    ${hintAndError(o.id, o.hint)}
  </div>`;
}

export function checkbox(o: {
  id: string;
  label: string;
  checked?: boolean;
  hint?: string;
  hidden?: boolean;
}): Html {
  return html`<div class="field check" id="${o.id}-row" ${o.hidden ? html` hidden` : ''}>
    <input
      id="${o.id}"
      name="${o.id}"
      type="checkbox"
      ${o.checked ? html` checked` : ''}
      aria-describedby="${describedBy(o.id, o.hint)}"
    />
    <label for="${o.id}">${o.label}</label>
    ${hintAndError(o.id, o.hint)}
  </div>`;
}
