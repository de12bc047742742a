import { api, dataOf } from './api.js';
import { $ } from './dom.js';
import type { Router } from './hotspot.js';
import { amount, bytesWords, durationWords, speedWords, type Strings } from './portal-format.js';

/** The portal's plan list: fetched once, drawn as radio cards in the current language. */

export interface Plan {
  id: string;
  name: string;
  description: string;
  price_tzs: number;
  duration_seconds: number;
  data_limit_bytes?: number;
  download_kbps?: number;
  upload_kbps?: number;
}

type Translate = (key: string, vars?: Readonly<Record<string, string | number>>) => string;

let plans: Plan[] = [];

/**
 * The plans of the site of the router the guest came through (DESIGN.md §4.9): the router is named
 * as the hand-off names it (nasid, else uamip); without a router, the default site's.
 */
export async function fetchPlans(router: Router | null): Promise<void> {
  const query = new URLSearchParams();
  if (router?.nasid !== undefined) query.set('nasid', router.nasid);
  if (router?.kind === 'coovachilli') query.set('uamip', router.uamip);
  const search = query.toString() === '' ? '' : `?${query.toString()}`;
  const result = await api('GET', `/api/v1/public/plans${search}`);
  plans = result.status === 200 ? (dataOf(result) as Plan[]) : [];
  $('plans').dataset.state = result.status === 200 ? (plans.length ? 'ok' : 'none') : 'error';
}

export const selectedPlan = (): Plan | undefined => {
  const id = document.querySelector<HTMLInputElement>('input[name="plan"]:checked')?.value;
  return plans.find((p) => p.id === id);
};

/** (Re)draws the list, keeping the choice (or `preferred`, or the only plan) selected. */
export function showPlans(
  t: Translate,
  strings: Strings,
  preferred: string | undefined,
  onChange: () => void,
): void {
  const box = $('plans');
  const state = box.dataset.state;
  if (state !== 'ok') {
    const p = document.createElement('p');
    p.textContent = t(state === 'none' ? 'plans.none' : state === 'error' ? 'plans.error' : 'plans.loading');
    box.replaceChildren(p);
    return;
  }
  const chosen = selectedPlan()?.id ?? preferred ?? (plans.length === 1 ? plans[0]?.id : undefined);
  box.replaceChildren(...plans.map((plan) => planCard(plan, plan.id === chosen, t, strings, onChange)));
}

function planCard(
  plan: Plan,
  checked: boolean,
  t: Translate,
  strings: Strings,
  onChange: () => void,
): HTMLElement {
  const label = document.createElement('label');
  label.className = 'plan';
  const input = document.createElement('input');
  Object.assign(input, { type: 'radio', name: 'plan', value: plan.id, checked });
  input.addEventListener('change', onChange);
  const line = (cls: string, text: string): HTMLElement => {
    const span = document.createElement('span');
    span.className = cls;
    span.textContent = text;
    return span;
  };
  const limit = plan.data_limit_bytes;
  const data = limit === undefined ? t('plan.noLimit') : t('plan.data', { size: bytesWords(limit) });
  label.append(
    input,
    line('plan-name', plan.name),
    line('plan-price', t('price', { amount: amount(plan.price_tzs) })),
    line('plan-meta', `${durationWords(plan.duration_seconds, strings)} · ${data}`),
  );
  const speeds = [
    ...(plan.download_kbps === undefined
      ? []
      : [t('plan.speedDown', { speed: speedWords(plan.download_kbps) })]),
    ...(plan.upload_kbps === undefined ? [] : [t('plan.speedUp', { speed: speedWords(plan.upload_kbps) })]),
  ];
  if (speeds.length > 0) label.append(line('plan-meta plan-speed', speeds.join(' · ')));
  if (plan.description) label.append(line('plan-desc', plan.description));
  return label;
}
