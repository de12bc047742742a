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
