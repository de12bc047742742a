import type { SendResult, SmsMessage } from './types.js';

const TIMEOUT_MS = 10_000;

async function post(
  url: string,
  init: RequestInit,
): Promise<{ status: number; text: string } | { error: string }> {
  try {
    const res = await fetch(url, { method: 'POST', ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { status: res.status, text: await res.text().catch(() => '') };
  } catch (err) {
    return { error: `gateway unreachable: ${(err as Error).message}` };
  }
}

const parse = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/** Beem's HTTP Basic authorization: api key : secret key. */
const beemAuthorization = (gateway: { apiKey: string; secretKey: string }): string =>
  `Basic ${Buffer.from(`${gateway.apiKey}:${gateway.secretKey}`).toString('base64')}`;

/**
 * A GET that checks a gateway's credentials and sends nothing (`hotspot-ctl doctor`), on the
 * host of the configured send URL, so a sandbox setting is checked against the sandbox: Beem's
 * credit balance (`/public/v1/vendors/balance`, beemafrica/beem-sms-api-sample), Africa's
 * Talking's user data (`version1/user?username=…` beside `version1/messaging`).
 */
export function beemCredentialCheck(gateway: { url: string; apiKey: string; secretKey: string }): {
  url: string;
  headers: Record<string, string>;
} {
  return {
    url: new URL('/public/v1/vendors/balance', gateway.url).href,
    headers: { Accept: 'application/json', Authorization: beemAuthorization(gateway) },
  };
}

export function africasTalkingCredentialCheck(gateway: { url: string; username: string; apiKey: string }): {
  url: string;
  headers: Record<string, string>;
} {
  const url = new URL('user', gateway.url);
  url.search = new URLSearchParams({ username: gateway.username }).toString();
  return { url: url.href, headers: { Accept: 'application/json', apiKey: gateway.apiKey } };
}

/**
 * Beem Africa: POST JSON `{source_addr, encoding, message, recipients:[{recipient_id, dest_addr}]}`
 * with HTTP Basic (api key : secret key); `successful: true` (code 100) means accepted. Numbers
 * go without the plus.
 */
export async function sendViaBeem(
  gateway: { url: string; apiKey: string; secretKey: string },
  message: Required<Omit<SmsMessage, 'log'>>,
): Promise<SendResult> {
  const transport = 'beem';
  const res = await post(gateway.url, {
    headers: {
      'Content-Type': 'application/json',
      Authorization: beemAuthorization(gateway),
    },
    body: JSON.stringify({
      source_addr: message.senderId,
      encoding: 0,
      schedule_time: '',
      message: message.message,
      recipients: [{ recipient_id: '1', dest_addr: message.to.replace(/^\+/, '') }],
    }),
  });
  if ('error' in res) return { ok: false, transport, error: res.error };
  const body = parse(res.text);
  if (res.status >= 300 || body.successful !== true) {
    const detail = typeof body.message === 'string' ? `: ${body.message}` : '';
    return { ok: false, transport, error: `gateway answered ${String(res.status)}${detail}` };
  }
  const requestId = body.request_id;
  return {
    ok: true,
    transport,
    status: 'accepted',
    ...(typeof requestId === 'string' || typeof requestId === 'number'
      ? { providerId: String(requestId) }
      : {}),
  };
}

/**
 * Africa's Talking: POST form `username, to, message, from` with the `apiKey` header; 201 with a
 * recipient status "Success" means accepted; the recipient's messageId is the reference.
 */
export async function sendViaAfricasTalking(
  gateway: { url: string; username: string; apiKey: string },
  message: Required<Omit<SmsMessage, 'log'>>,
): Promise<SendResult> {
  const transport = 'africastalking';
  const res = await post(gateway.url, {
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
      apiKey: gateway.apiKey,
    },
    body: new URLSearchParams({
      username: gateway.username,
      to: message.to,
      message: message.message,
      from: message.senderId,
    }).toString(),
  });
  if ('error' in res) return { ok: false, transport, error: res.error };
  const data = parse(res.text).SMSMessageData as
    { Recipients?: { status?: string; messageId?: string }[]; Message?: string } | undefined;
  const recipient = data?.Recipients?.[0];
  if (res.status !== 201 || recipient?.status !== 'Success') {
    const detail = recipient?.status ?? data?.Message;
    return {
      ok: false,
      transport,
      error: `gateway answered ${String(res.status)}${detail ? `: ${detail}` : ''}`,
    };
  }
  return {
    ok: true,
    transport,
    status: 'accepted',
    ...(recipient.messageId ? { providerId: recipient.messageId } : {}),
  };
}
