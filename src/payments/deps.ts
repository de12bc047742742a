import type { WifiDeps } from '../wifi/index.js';
import type { PaymentProviders } from './gateway.js';

/** What payments/ domain functions may ask for: the Wi-Fi deps with the full provider gateway. */
export type PaymentsDeps = Omit<WifiDeps, 'payments'> & { payments: PaymentProviders };
