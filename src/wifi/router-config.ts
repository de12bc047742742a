import { renderCoovaChilli, renderOpenWrt } from './router-config-chilli.js';
import type { RouterConfigInput } from './router-config-facts.js';
import { renderRouterOs } from './router-config-routeros.js';

export {
  PLACEHOLDERS,
  routerConfigFileName,
  walledGardenHosts,
  type RouterConfigInput,
} from './router-config-facts.js';
export { ROUTEROS_MARK, routerOsString, routerOsTime } from './router-config-routeros.js';
export { shellQuote } from './router-config-chilli.js';
export { MIKROTIK_LOGIN_FIELDS, mikrotikLoginHtml } from './mikrotik.js';

/**
 * Ready-to-paste router configuration (`devices router-config`): a RouterOS 7 script, lines for
 * CoovaChilli's /etc/chilli/config, or `uci` commands for OpenWrt's coova-chilli package. Pure:
 * the caller hands in every value, including the time. A secret the router shares with the
 * global RADIUS_SECRET or UAM_SECRET is never printed: a placeholder stands in its place.
 */

export const ROUTER_CONFIG_FORMATS = ['routeros', 'coovachilli', 'openwrt'] as const;
export type RouterConfigFormat = (typeof ROUTER_CONFIG_FORMATS)[number];

export const isRouterConfigFormat = (value: string): value is RouterConfigFormat =>
  (ROUTER_CONFIG_FORMATS as readonly string[]).includes(value);

export function renderRouterConfig(input: RouterConfigInput, format: RouterConfigFormat): string {
  switch (format) {
    case 'routeros':
      return renderRouterOs(input);
    case 'coovachilli':
      return renderCoovaChilli(input);
    case 'openwrt':
      return renderOpenWrt(input);
  }
}
