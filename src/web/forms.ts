import { html, type Html } from './html.js';

export interface FieldOptions {
  id: string;
  label: string;
  type?: 'text' | 'email' | 'tel' | 'password' | 'url';
  autocomplete?: string;
  inputmode?: 'numeric' | 'tel' | 'email' | 'text';
  hint?: string;
  value?: string;
  required?: boolean;
  maxlength?: number;
}

/**
 * A labelled field with its hint and its error slot (`<id>-error`, filled by the page script),
 * both tied to the input with aria-describedby.
 */
export function field(o: FieldOptions): Html {
  const described = [o.hint ? `${o.id}-hint` : '', `${o.id}-error`].filter(Boolean).join(' ');
  return html`<div class="field">
    <label for="${o.id}">${o.label}</label>
    <input
      id="${o.id}"
      name="${o.id}"
      type="${o.type ?? 'text'}"
      ${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${
        o.inputmode ? html` inputmode="${o.inputmode}"` : ''
      }${o.value ? html` value="${o.value}"` : ''}${o.required === false ? '' : html` required`}${
        o.maxlength ? html` maxlength="${o.maxlength}"` : ''
      }
      aria-describedby="${described}"
    />
    ${o.hint ? html`<p class="hint" id="${o.id}-hint">${o.hint}</p>` : ''}
    <p class="error" id="${o.id}-error" hidden></p>
  </div>`;
}

/** A form's submit button and the slot for errors that belong to the whole form. */
export const submitRow = (formId: string, label: string, id = `${formId}-submit`): Html =>
  html`<button type="submit" class="primary" id="${id}">${label}</button>
    <p class="error" id="${formId}-error" role="alert" hidden></p>`;
