/**
 * The SMS reminders guests get (wifi/reminders.ts), in English; the Swahili table has the same
 * keys. `{service}` is SERVICE_NAME, `{minutes}` the time left (2-10), `{percent}` the share of
 * the data allowance used (80-99). One SMS each: keep them within 160 characters.
 */
export const smsEn = {
  ends: '{service} Wi-Fi: your time ends in {minutes} minutes. To stay online, buy more time on the Wi-Fi page.',
  data: '{service} Wi-Fi: you have used {percent}% of your data. To stay online when it runs out, buy another plan on the Wi-Fi page.',
};

export type SmsKey = keyof typeof smsEn;
