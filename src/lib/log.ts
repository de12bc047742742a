import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear in a log line. Code logs events with chosen fields,
 * never bodies or headers; this is the safety net for a mistake.
 */
const REDACT = [
  'password',
  'new_password',
  'secret',
  'client_secret',
  'token',
  'access_token',
  'refresh_token',
  'code',
  'cookie',
  'authorization',
  '*.password',
  '*.new_password',
  '*.secret',
  '*.client_secret',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.cookie',
  '*.authorization',
  'headers.cookie',
  'headers.authorization',
  'config.radiusSecret',
  'config.paymentWebhookSecret',
  'config.smtpUrl',
  'config.smsHttpToken',
  'config.uamSecret',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'hotspot-ctl' },
      redact: { paths: REDACT, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
