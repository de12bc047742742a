import { lazy } from '../lib/lazy.js';

/** otplib and its plugins, loaded by the first TOTP set-up or check: bench/footprint.ts. */
const otp = lazy('otplib', async () => {
  const { generateSecret, NobleCryptoPlugin, ScureBase32Plugin, TOTP } = await import('otplib');
  return {
    generateSecret,
    TOTP,
    plugins: { crypto: new NobleCryptoPlugin(), base32: new ScureBase32Plugin() },
  };
});

/** 20 random bytes, base32 (what authenticator apps expect). */
export const newTotpSecret = async (): Promise<string> => (await otp()).generateSecret({ length: 20 });

/**
 * The otpauth URI for the QR code, with every parameter spelt out (SHA1, 6 digits, 30 s);
 * otplib's generateURI drops the ones equal to its defaults.
 */
export function totpUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: '6', period: '30' });
  return `otpauth://totp/${label}?${params.toString().replace(/\+/g, '%20')}`;
}

/** How far a code's step may be from now: the previous and the next 30 s step. */
const TOLERANCE_SECONDS = 30;

/**
 * Checks a 6-digit code at `now`, accepting the previous and next 30 s step, and refusing any
 * step at or before `afterStep` (a code is never accepted twice). Returns the matched step.
 */
export async function checkTotp(
  secret: string,
  code: string,
  now: Date,
  afterStep: number | null,
): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const epoch = Math.floor(now.getTime() / 1000);
  // Every step a code could match now is at or before `afterStep`: the clock was stepped back
  // (NTP correcting a box that ran ahead) after a code of a later step was accepted. No code can
  // be accepted until time passes that step again (otplib throws on such an `afterTimeStep`).
  if (afterStep !== null && afterStep >= Math.floor((epoch + TOLERANCE_SECONDS) / 30)) return null;
  const { TOTP, plugins } = await otp();
  const totp = new TOTP({ secret, ...plugins });
  const result = await totp.verify(code, {
    epoch,
    epochTolerance: TOLERANCE_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  return result.valid ? result.timeStep : null;
}
