import { errorCatalogue } from '../lib/errors.js';

/** The counter tools' errors (DESIGN.md §4.8): code → status and the exact `{message}`. */
export const counterErrors = errorCatalogue({
  planInvalid: [422, 'plan_id must be the id of a plan of a site you can see'],
  channelInvalid: [422, 'channel must be cash or complimentary'],
  cashAmountInvalid: [422, 'amount_tzs must be a whole number from 1 to 10000000 for a cash sale'],
  complimentaryAmount: [422, 'a complimentary grant takes no amount_tzs (or 0)'],
  secondsInvalid: [422, 'seconds must be a whole number from 60 to 31536000'],
  reasonInvalid: [422, 'reason must be 1-500 characters'],
  reasonOptionalInvalid: [422, 'reason must be 1-500 characters when given'],
  invoiceAlreadyPaid: [409, 'the invoice is already paid'],
  invoiceNotPaid: [409, 'only a paid invoice can be refunded'],
  invoiceAlreadyRefunded: [409, 'the invoice is already refunded'],
  invoiceNoMoney: [409, 'a complimentary invoice took no money: revoke its access instead'],
  invoiceNotRecheckable: [
    409,
    'only an unpaid mobile-money invoice of the current payment provider can be re-checked',
  ],
  providerUnknown: [502, 'the payment provider could not say what became of the payment'],
  auditLimitInvalid: [422, 'limit must be a whole number from 1 to 200'],
  auditTimeInvalid: [422, 'from and to must be ISO-8601 date-times'],
  auditCursorInvalid: [422, 'cursor is not one this list returned'],
});
