import type { SmsKey } from './sms.en.js';

/** The SMS reminders in Swahili: the same keys as the English table, checked by the compiler. */
export const smsSw: Readonly<Record<SmsKey, string>> = {
  ends: '{service} Wi-Fi: muda wako unaisha baada ya dakika {minutes}. Ili uendelee kuwa mtandaoni, nunua muda zaidi kwenye ukurasa wa Wi-Fi.',
  data: '{service} Wi-Fi: umetumia asilimia {percent} ya data yako. Ili uendelee kuwa mtandaoni ikiisha, nunua kifurushi kingine kwenye ukurasa wa Wi-Fi.',
};
