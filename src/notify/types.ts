export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export interface SmsMessage {
  to: string;
  message: string;
  /** Defaults to SMS_SENDER_ID. */
  senderId?: string;
  /**
   * What the SMS log (sms_messages, the admin SMS page) keeps of it; `false`: the caller keeps
   * its own record (staff messages). Without it the message is logged as `other`, text blanked.
   */
  log?: SmsLogEntry | false;
}

/** Stands for a secret (password, code) in a logged SMS text. */
export const BLANKED = '••••••';

export interface SmsLogEntry {
  /** credentials, reminder_ends, reminder_data, code, reset, … */
  kind: string;
  /** The text as the log shows it: the message with any secret (password, code) blanked. */
  text: string;
  /** The site of the guest's purchase, when there is one. */
  siteId?: string | null;
  /** Names the message a retry belongs to: a retry counts as one more attempt of its row. */
  key?: string;
}

/** Sending never throws: a failure is reported to the caller, which decides what it means. */
export type SendResult =
  | { ok: true; transport: string; providerId?: string; status?: string }
  | { ok: false; transport: string; error: string };

export interface MailSender {
  sendMail(message: MailMessage): Promise<SendResult>;
}

export interface SmsSender {
  sendSms(message: SmsMessage): Promise<SendResult>;
}

export type Notifier = MailSender & SmsSender;

/** One line of outbox.jsonl. */
export interface OutboxEntry {
  channel: 'email' | 'sms';
  to: string;
  subject?: string;
  text: string;
  sender_id?: string;
  created_at: string;
}
