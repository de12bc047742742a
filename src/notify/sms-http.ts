import type { SendResult, SmsMessage } from './types.js';

const TIMEOUT_MS = 10_000;

/**
 * The generic HTTP SMS gateway: POST JSON `{to, message, sender_id}` with a bearer token; any
 * 2xx means accepted. A JSON answer's `id` or `message_id`, when present, is kept as the
 * provider's reference.
 */
export async function sendViaHttpGateway(
  gateway: { url: string; token: string | null },
  message: Required<Omit<SmsMessage, 'log'>>,
): Promise<SendResult> {
  const transport = 'http';
  let response: Response;
  try {
    response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(gateway.token ? { Authorization: `Bearer ${gateway.token}` } : {}),
      },
      body: JSON.stringify({ to: message.to, message: message.message, sender_id: message.senderId }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    return { ok: false, transport, error: `gateway unreachable: ${(err as Error).message}` };
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) return { ok: false, transport, error: `gateway answered ${String(response.status)}` };
  return { ok: true, transport, status: 'accepted', ...providerId(text) };
}

function providerId(text: string): { providerId?: string } {
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const id = parsed.id ?? parsed.message_id;
    return typeof id === 'string' || typeof id === 'number' ? { providerId: String(id) } : {};
  } catch {
    return {};
  }
}
