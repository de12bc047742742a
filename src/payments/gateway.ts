import { ConfigError, settingList, type Config, type PaymentProviderName } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import {
  siteAccount,
  type AccountSettings,
  type PaymentGateway,
  type PaymentInvoice,
  type PaymentRequest,
  type PaymentStatus,
  type PromptResult,
  type WifiDeps,
} from '../wifi/index.js';
import { createAzamPayProvider } from './azampay.js';
import type { PaymentProvider } from './provider.js';
import { createSandboxProvider } from './sandbox.js';
import { createSelcomProvider } from './selcom.js';

/**
 * The payment providers as the rest of the box sees them (docs/decisions/0032): the ones
 * PAYMENT_PROVIDERS (or PAYMENT_PROVIDER) names, in that fallback order, each with the box's
 * account and, per site, the site's own account when it has one.
 */
export interface PaymentProviders extends PaymentGateway {
  /** A configured provider with the box's account; undefined when it is not configured. */
  provider(name: string): PaymentProvider | undefined;
  /** A configured provider with a site's own account, else the box's; undefined when not configured. */
  forSite(name: string, siteId: string): Promise<PaymentProvider | undefined>;
}

type AdapterDeps = { config: Config; clock: Clock; log: Logger };

/**
 * The prompt (every provider tried, one after the other) is made while the guest's purchase
 * request waits: it must be done before the HTTP request's own 30 s timeout, so a provider that
 * does not answer is reported as the spec's 502 (provider unreachable), not a 503.
 */
export const PROMPT_DEADLINE_MS = 25_000;

/**
 * The fallback order: PAYMENT_PROVIDERS, or PAYMENT_PROVIDER alone. PAYMENT_PROVIDER left at its
 * default or naming the first of PAYMENT_PROVIDERS is fine; another name is a contradiction.
 */
export function providerOrder(config: Config): readonly PaymentProviderName[] {
  const order = config.paymentProviders;
  if (order === null) return [config.paymentProvider];
  const single = config.paymentProvider;
  if (single !== 'sandbox' && single !== order[0])
    throw new ConfigError([
      `PAYMENT_PROVIDER: is ${single} but PAYMENT_PROVIDERS starts with ${String(order[0])}: set one of them`,
    ]);
  return order;
}

/** The credentials of `provider` the configuration lacks, one problem each. */
function missing(config: Config, provider: string, keys: readonly (keyof Config)[]): string[] {
  const why =
    config.paymentProviders === null
      ? `PAYMENT_PROVIDER is ${provider}`
      : `PAYMENT_PROVIDERS names ${provider}`;
  return settingList()
    .filter((s) => keys.includes(s.key) && config[s.key] === null)
    .map((s) => `${s.env}: must be set when ${why}`);
}

/** One provider's adapter for one account (`config` carries it); a missing credential is a ConfigError. */
export function buildProvider(name: PaymentProviderName, deps: AdapterDeps): PaymentProvider {
  const { config } = deps;
  switch (name) {
    case 'sandbox':
      return createSandboxProvider(deps);
    case 'selcom': {
      const { selcomApiKey, selcomApiSecret, selcomVendor } = config;
      if (selcomApiKey === null || selcomApiSecret === null || selcomVendor === null)
        throw new ConfigError(missing(config, name, ['selcomApiKey', 'selcomApiSecret', 'selcomVendor']));
      return createSelcomProvider({
        ...deps,
        config: { ...config, selcomApiKey, selcomApiSecret, selcomVendor },
      });
    }
    case 'azampay': {
      const { azampayAppName, azampayClientId, azampayClientSecret, azampayApiKey, azampayCallbackToken } =
        config;
      if (
        azampayAppName === null ||
        azampayClientId === null ||
        azampayClientSecret === null ||
        azampayApiKey === null ||
        azampayCallbackToken === null
      )
        throw new ConfigError(
          missing(config, name, [
            'azampayAppName',
            'azampayClientId',
            'azampayClientSecret',
            'azampayApiKey',
            'azampayCallbackToken',
          ]),
        );
      return createAzamPayProvider({
        ...deps,
        config: {
          ...config,
          azampayAppName,
          azampayClientId,
          azampayClientSecret,
          azampayApiKey,
          azampayCallbackToken,
        },
      });
    }
  }
}

/**
 * The box's adapters in fallback order: built (and so checked) at start-up, before anything
 * else opens, so a provider without its credentials stops the daemon with their names.
 */
export function createPaymentAdapters(deps: AdapterDeps): readonly PaymentProvider[] {
  const order = providerOrder(deps.config);
  const problems: string[] = [];
  const adapters = order.flatMap((name) => {
    try {
      return [buildProvider(name, deps)];
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return [];
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return adapters;
}

/** A site's credentials (setting name → value) over the box's configuration. */
function withAccount(config: Config, settings: AccountSettings): Config {
  const overrides = settingList()
    .filter((s) => Object.hasOwn(settings, s.env))
    .map((s) => [s.key, settings[s.env]]);
  return { ...config, ...Object.fromEntries(overrides) } as Config;
}

type FailedPrompt = Extract<PromptResult, { ok: false }> & { provider: string };

/** The gateway over the adapters: the fallback order, the site accounts, the invoice's own provider. */
export function createPaymentGateway(
  deps: AdapterDeps & Pick<WifiDeps, 'db' | 'vault'>,
  adapters: readonly PaymentProvider[],
): PaymentProviders {
  const log = deps.log.child({ feature: 'payments' });
  const first = adapters[0];
  if (!first) throw new Error('no payment provider');
  const byName = new Map(adapters.map((a) => [a.name, a]));
  /** Adapters of site accounts, rebuilt when the sealed credentials change. */
  const siteAdapters = new Map<string, { sealed: string; adapter: PaymentProvider }>();

  async function forSite(name: string, siteId: string): Promise<PaymentProvider | undefined> {
    const base = byName.get(name);
    if (!base) return undefined;
    const account = await siteAccount(deps, siteId, name);
    if (account === null) return base;
    const key = `${name}\u0000${siteId}`;
    const held = siteAdapters.get(key);
    if (held?.sealed === account.sealed) return held.adapter;
    const adapter = buildProvider(name as PaymentProviderName, {
      ...deps,
      config: withAccount(deps.config, account.settings),
    });
    siteAdapters.set(key, { sealed: account.sealed, adapter });
    return adapter;
  }

  /** One provider's answer; an adapter that throws is treated as one whose push may have gone out. */
  async function ask(name: string, request: PaymentRequest, deadline: AbortSignal): Promise<PromptResult> {
    try {
      const adapter = await forSite(name, request.siteId);
      if (!adapter) return { ok: false, reason: 'unreachable', detail: `${name} is not configured` };
      return await adapter.requestPayment(request, deadline);
    } catch (err) {
      return { ok: false, reason: 'unreachable', detail: String(err), maybePrompted: true };
    }
  }

  return {
    name: first.name,
    names: adapters.map((a) => a.name),
    guestHosts: [...new Set(adapters.flatMap((a) => a.guestHosts))],

    readiness: () =>
      adapters.some((a) => a.readiness().ready) ? { ready: true } : { ready: false, reason: 'unreachable' },

    provider: (name) => byName.get(name),
    forSite,

    /**
     * The first provider in the order that takes the prompt. A refusal, or a failure before the
     * push went out, passes the purchase to the next one; a push that may have reached the phone
     * keeps it (the guest must not be asked twice), and the poll asks that provider about it.
     */
    async requestPayment(request) {
      const deadline = new AbortController();
      const timer = deps.clock.setTimer(PROMPT_DEADLINE_MS, () =>
        deadline.abort(new Error(`no answer within ${String(PROMPT_DEADLINE_MS / 1000)} s`)),
      );
      try {
        let failed: FailedPrompt | undefined;
        for (const name of byName.keys()) {
          if (failed)
            log.warn(
              {
                event: 'payments.fallback',
                invoice_number: request.invoiceNumber,
                from: failed.provider,
                to: name,
                reason: failed.reason,
              },
              'payment prompt passed to the next provider',
            );
          const result = await ask(name, request, deadline.signal);
          if (result.ok || result.maybePrompted === true) return { ...result, provider: name };
          failed = { ...result, provider: name };
        }
        return failed ?? { ok: false, reason: 'unreachable', detail: 'no provider', provider: first.name };
      } finally {
        timer.cancel();
      }
    },

    async queryStatus(
      invoice: PaymentInvoice & { provider: string; siteId: string },
    ): Promise<PaymentStatus> {
      const adapter = await forSite(invoice.provider, invoice.siteId);
      if (!adapter) return { status: 'unknown', detail: `${invoice.provider} is not configured` };
      return adapter.queryStatus(invoice);
    },
  };
}
