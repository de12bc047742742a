import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import { lazy } from '../lib/lazy.js';
import type { Logger } from '../lib/log.js';
import { Outbox } from './outbox.js';
import { sendViaHttpGateway } from './sms-http.js';
import { sendViaAfricasTalking, sendViaBeem } from './sms-providers.js';
import type { MailMessage, Notifier, SendResult, SmsMessage } from './types.js';

export type {
  MailMessage,
  MailSender,
  Notifier,
  OutboxEntry,
  SendResult,
  SmsLogEntry,
  SmsMessage,
  SmsSender,
} from './types.js';
export { Outbox, outboxPath, parseOutbox, readOutbox } from './outbox.js';
export { BLANKED } from './types.js';
export { africasTalkingCredentialCheck, beemCredentialCheck } from './sms-providers.js';

type NotifyConfig = Pick<
  Config,
  | 'dataDir'
  | 'smtpUrl'
  | 'mailFrom'
  | 'serviceName'
  | 'smsProvider'
  | 'smsHttpUrl'
  | 'smsHttpToken'
  | 'smsSenderId'
  | 'beemApiKey'
  | 'beemSecretKey'
  | 'beemSmsUrl'
  | 'africastalkingUsername'
  | 'africastalkingApiKey'
  | 'africastalkingSmsUrl'
>;

const nodemailer = lazy('nodemailer', () => import('nodemailer'));

/** SMTP_URL's transport, made (and nodemailer loaded) by the first mail: bench/footprint.ts. */
async function smtpTransport(url: string) {
  const { createTransport } = await nodemailer();
  // Bounded waits: a mail server that does not answer fails the send in seconds, not minutes.
  return createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
}

/**
 * Mail through SMTP when SMTP_URL is set, otherwise the outbox; SMS through the configured
 * gateway. Failures are logged and returned, never thrown: a message that cannot go out must not
 * take a request, a job or the process down with it.
 */
export function createNotifier(deps: {
  config: NotifyConfig;
  clock: Clock;
  log: Logger;
}): Notifier & { close(): void } {
  const { config } = deps;
  const log = deps.log.child({ feature: 'notify' });
  const outbox = new Outbox(config.dataDir, deps.clock);
  let smtp: ReturnType<typeof smtpTransport> | null = null;
  const from = config.mailFrom.includes('<')
    ? config.mailFrom
    : { name: config.serviceName, address: config.mailFrom };

  const report = (channel: 'email' | 'sms', to: string, result: SendResult): SendResult => {
    if (result.ok)
      log.info({ event: 'notify.sent', channel, transport: result.transport, to }, 'message sent');
    else
      log.warn(
        { event: 'notify.failed', channel, transport: result.transport, to, error: result.error },
        'send failed',
      );
    return result;
  };

  const toOutbox = async (entry: Parameters<Outbox['append']>[0]): Promise<SendResult> => {
    try {
      await outbox.append(entry);
      return { ok: true, transport: 'outbox', status: 'spooled' };
    } catch (err) {
      return { ok: false, transport: 'outbox', error: (err as Error).message };
    }
  };

  /** The configured SMS gateway; validated at start, so every provider has its settings. */
  const smsGateway = (full: Required<Omit<SmsMessage, 'log'>>): Promise<SendResult> => {
    switch (config.smsProvider) {
      case 'outbox':
        return toOutbox({ channel: 'sms', to: full.to, text: full.message, sender_id: full.senderId });
      case 'http':
        return sendViaHttpGateway({ url: config.smsHttpUrl ?? '', token: config.smsHttpToken }, full);
      case 'beem':
        return sendViaBeem(
          { url: config.beemSmsUrl, apiKey: config.beemApiKey ?? '', secretKey: config.beemSecretKey ?? '' },
          full,
        );
      case 'africastalking':
        return sendViaAfricasTalking(
          {
            url: config.africastalkingSmsUrl,
            username: config.africastalkingUsername ?? '',
            apiKey: config.africastalkingApiKey ?? '',
          },
          full,
        );
    }
  };

  return {
    async sendMail(message: MailMessage) {
      if (!config.smtpUrl) {
        return report(
          'email',
          message.to,
          await toOutbox({ channel: 'email', to: message.to, subject: message.subject, text: message.text }),
        );
      }
      try {
        // A transport that could not be made is tried again by the next mail.
        smtp ??= smtpTransport(config.smtpUrl).catch((err: unknown) => {
          smtp = null;
          throw err;
        });
        const info = await (await smtp).sendMail({ from, ...message });
        return report('email', message.to, { ok: true, transport: 'smtp', providerId: info.messageId });
      } catch (err) {
        return report('email', message.to, { ok: false, transport: 'smtp', error: (err as Error).message });
      }
    },

    async sendSms(message: SmsMessage) {
      const full = { ...message, senderId: message.senderId ?? config.smsSenderId };
      return report('sms', message.to, await smsGateway(full));
    },

    close() {
      void smtp?.then(
        (transport) => transport.close(),
        () => undefined, // never made: nothing to close
      );
    },
  };
}
