/**
 * SMS_SENDER_ID per SMS provider. Networks (Tanzania's included) take an alphanumeric sender id
 * of at most 11 characters (the GSM limit, 3GPP TS 23.040): Beem's `source_addr` is such a
 * registered name, Africa's Talking's `from` is one (or a short code of digits), and the generic
 * `http` gateway hands it to the same networks; the admin API's own `sender_id` takes the same
 * 1-11 letters or digits. `outbox` only records messages, so it takes any sender id.
 */

export const SENDER_ID_MAX = 11;
const SENDER_ID = /^[A-Za-z0-9]{1,11}$/;

/** Why `id` cannot be the sender id with `provider`; undefined when it can. */
export function senderIdProblem(provider: string, id: string): string | undefined {
  if (provider === 'outbox' || SENDER_ID.test(id)) return undefined;
  return `${provider} takes a sender id of 1-${String(SENDER_ID_MAX)} letters (A-Z) or digits, no spaces`;
}

/**
 * The sender id made from SERVICE_NAME when SMS_SENDER_ID is unset: accents dropped, every word
 * of letters and digits joined while they fit in 11 characters (the first word cut if it alone
 * is longer). Empty when nothing usable is left (a name in another script).
 */
export function senderIdFrom(serviceName: string): string {
  const words = serviceName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  let out = '';
  for (const word of words) {
    if (out === '') out = word.slice(0, SENDER_ID_MAX);
    else if (out.length + word.length <= SENDER_ID_MAX) out += word;
    else break;
  }
  return out;
}
