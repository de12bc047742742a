/** The Wi-Fi feature's public surface: what app.ts, cli/, payments/ and radius/ may import. */

export type { WifiDeps } from './deps.js';
export { wifiErrors } from './errors.js';
export type {
  CoaClient,
  CoaProbeAnswer,
  DisconnectAnswer,
  SessionTarget,
  SessionTerms,
  PaymentEvent,
  PaymentGateway,
  PaymentInvoice,
  PaymentRequest,
  PaymentStatus,
  PromptResult,
  ProviderReadiness,
} from './ports.js';
export { coaNotAvailable } from './ports.js';
export { PAYMENT_OUTCOMES, PaymentOutcomes, type PaymentOutcome } from './payment-outcomes.js';
export { isMobileNetwork, MOBILE_NETWORKS, networkOfPhone, type MobileNetwork } from './networks.js';

// Plans
export {
  createPlan,
  updatePlan,
  listPlans,
  listAllPlans,
  listActivePlans,
  getPlan,
  type PlanRow,
} from './plans.js';
export { presentPlan, presentPublicPlan } from './plans.present.js';
export type { PlanRequest } from './plans.schema.js';

// Devices
export {
  registerDevice,
  updateDevice,
  rotateDeviceSecret,
  pinRadsecCertificate,
  getDevice,
  listDevices,
  listAllDevices,
  deviceByNasId,
  shortRadiusSecrets,
  findPortalRouter,
  markRoutersSeen,
  routersOnline,
  routersUp,
  routerUp,
  ONLINE_WITHIN_INTERVALS,
  downSince,
  type DeviceView,
  radiusSecretSource,
  type DeviceRow,
  type DeviceWithSecret,
  type NasDevice,
  type RadiusSecretSource,
  type PortalRouter,
} from './devices.js';
export { presentDevice } from './devices.present.js';
export {
  archiveDevice,
  archivePlan,
  deleteDevice,
  deletePlan,
  unarchiveDevice,
  unarchivePlan,
  type ArchiveActor,
  type ArchivedDevice,
} from './archive.js';
export type { ArchivedFilter } from './plans.store.js';
export { routerConfig } from './router-setup.js';
export { ROUTER_CONFIG_FORMATS, type RouterConfigFormat } from './router-config.js';
export type { DeviceRequest } from './devices.schema.js';

// Sites (DESIGN.md §4.9)
export {
  DEFAULT_SITE_ID,
  createSite,
  updateSite,
  listSites,
  getSite,
  siteByRef,
  hasSeveralSites,
  type SiteRow,
  type SiteScope,
  type SiteView,
} from './sites.js';
export { presentSite } from './sites.present.js';
export {
  ACCOUNT_PROVIDERS,
  accountField,
  ownAccounts,
  siteAccount,
  type AccountProvider,
  type AccountSettings,
} from './sites-accounts.js';
export type { SiteRequest } from './sites.schema.js';
export { addStaffForSites, listStaffWithSites } from './sites-staff.js';
export { portalBrand, siteLogo, siteStylesheet, type PortalBrand, type PortalQuery } from './sites-portal.js';

// Purchases, payments, access grants
export {
  startPurchase,
  getPurchase,
  invoiceByNumber,
  invoiceNumber,
  networkOf,
  type InvoiceRow,
  type InvoiceStatus,
} from './purchases.js';
export { settlePayment, type SettleOutcome } from './settlement.js';
export {
  issue,
  authorize,
  authorizeDevice,
  rememberDevice,
  findLiveForPurchase,
  revoke,
  expireDue,
  type Decision,
  type RejectReason,
  type GrantRow,
  type LiveGrantLookup,
  type ExpiredGrant,
} from './grants.js';
export { uamLogin, hotspotLogin, accessLogin, checkRouter } from './hand-off.js';

// Counter tools and the audit trail (DESIGN.md §4.8)
export {
  issueAtCounter,
  extendGrant,
  revokeGrant,
  recheckInvoice,
  markInvoicePaid,
  recentGrants,
  presentInvoice,
  type CounterSale,
  type Staff,
} from './counter.js';
export { presentRefund, refundInvoice, type Refund } from './refunds.js';
export { presentGrant } from './grants.js';
export { cliActor, staffActor, recordAudit, type WifiActor } from './audit.js';
export { auditPage, type AuditListRequest } from './audit.list.js';

// RADIUS sessions (accounting) and disconnects
export type { CoaOutcome, SessionDisconnect } from './disconnect.js';
export { disconnectGrant } from './disconnect.js';
export {
  recordAccounting,
  closeStaleSessions,
  listSessions,
  disconnectSession,
  disconnectSessionKeepGrant,
  STALE_AFTER_INTERVALS,
  type AccountingRecord,
  type AccountingResult,
  type SessionRow,
  type ListedSessionRow,
} from './sessions.js';
export {
  presentSession,
  presentDisconnect,
  presentSpeedChange,
  presentAnswers,
  type RouterAnswer,
} from './sessions.present.js';
export { applyPlanSpeedToLive, updatePlanAndApply, type SpeedChangeOutcome } from './speed.js';
export { expireInvoices, reconcilePayments, invoicesAwaitingPayment } from './jobs.js';

// Messages to guests (DESIGN.md §4.8)
export { guestLanguage, type GuestLanguage } from './language.js';
export { remindGuests, type ReminderOutcome, type ReminderTexts } from './reminders.js';
export { loggedSms, pruneSmsLog, PRUNE_BATCH, SMS_KINDS, SMS_STATES } from './sms-log.js';
export { watchRouters, type RouterWatch } from './router-health.js';

// Staff admin API
export { authenticateAdmin, ROLE_RANK, mayAct, type StaffPrincipal } from './staff.js';
export { ADMIN_COOKIE } from './staff.http.js';
export type { PortalFacts } from './portal-config.js';

// HTTP routes (mounted by app.ts)
export { staffRoutes } from './staff.routes.js';
export { adminRoutes } from './admin.routes.js';
export { planRoutes } from './plans.routes.js';
export { purchaseRoutes } from './purchases.routes.js';
export { accessRoutes } from './access.routes.js';
export { voucherRoutes } from './vouchers.routes.js';
export { smsDeliveryRoutes } from './sms-delivery.routes.js';

// Vouchers (DESIGN.md §4.8)
export {
  createBatch,
  listBatches,
  getBatch,
  revokeVouchers,
  printVouchers,
  sheetOf,
  redeemVoucher,
  statusOf,
  type VoucherBatchRow,
  type VoucherRow,
  type VoucherStatus,
  type CreatedBatch,
  type BatchSummary,
  type PrintedSheet,
} from './vouchers.js';
export {
  presentBatch,
  presentBatchSummary,
  presentCreated,
  presentVoucher,
  vouchersCsv,
  codesCsv,
} from './vouchers.present.js';
export { voucherSheet, sheetHeaders } from './vouchers.print.js';
export {
  normaliseCode,
  formatCode,
  codesFromText,
  parsePrintFormat,
  PRINT_FORMATS,
  type PrintFormat,
} from './vouchers.schema.js';
export {
  maskPhone,
  reportCsv,
  reportErrors,
  REPORT_GROUPS,
  REPORT_NAMES,
  runReport,
  type Report,
  type ReportRequest,
  type ReportTable,
} from './reports.js';
