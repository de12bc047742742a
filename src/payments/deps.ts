import type { WifiDeps } from '../wifi/index.js';
import type { PaymentProvider } from './provider.js';

/** What payments/ domain functions may ask for: the Wi-Fi deps with the full provider adapter. */
export type PaymentsDeps = Omit<WifiDeps, 'payments'> & { payments: PaymentProvider };
