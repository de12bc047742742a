import { AppError, errorCatalogue } from '../lib/errors.js';

/**
 * The Wi-Fi feature's errors: code → status and the exact message in `{message}`. Statuses the
 * spec leaves open follow DESIGN.md §4.2/§4.3 (docs/decisions/0010-purchase-flow.md).
 */
export const wifiErrors = errorCatalogue({
  // Request shape (400)
  invalidBody: [400, 'invalid request body'],
  idempotencyKeyMissing: [400, 'Idempotency-Key header is required'],
  idempotencyKeyInvalid: [400, 'Idempotency-Key must be 16-96 letters, digits, underscores or hyphens'],

  // Purchase values (422)
  invalidPhone: [422, 'invalid phone number'],
  invalidPlan: [422, 'plan not found or not on sale'],
  invalidNetwork: [422, 'invalid mobile-money network: vodacom, tigo, airtel, halotel or azampesa'],

  // Purchase state
  idempotencyKeyReused: [409, 'Idempotency-Key was already used for a different purchase'],
  notReady: [503, 'service not ready, try again shortly'],
  providerRefused: [502, 'the payment provider refused the payment request'],
  providerUnreachable: [502, 'the payment provider could not be reached'],
  invoiceNotFound: [404, 'invoice not found'],

  // UAM login
  purchaseKeyInvalid: [422, 'purchase_key must be at least 16 characters'],
  uamipInvalid: [422, 'uamip must be an IPv4 address'],
  uamportInvalid: [422, 'uamport must be a port number'],
  challengeInvalid: [422, 'challenge must be 32 hexadecimal characters'],
  userurlInvalid: [422, 'userurl must be an http or https URL'],
  uamipUnknown: [422, 'uamip is not inside any registered device network'],

  // Finding the router, and the MikroTik hand-off (DESIGN.md §4.7)
  nasidInvalid: [422, 'nasid must be 1-253 printable characters'],
  routerUnknown: [422, 'nasid is not a registered router'],
  routerAmbiguous: [422, 'ambiguous router: send nasid'],
  uamipOutsideRouter: [422, 'uamip is not inside the network of the router named by nasid'],
  routerParamsMissing: [
    422,
    'send uamip, uamport and challenge (CoovaChilli) or nasid and link_login_only (MikroTik)',
  ],
  routerParamsMixed: [
    422,
    "send either CoovaChilli's uamip, uamport and challenge or MikroTik's link_login_only, not both",
  ],
  linkLoginOnlyInvalid: [422, 'link_login_only must be an http or https URL without query or credentials'],
  linkLoginOnlyOutside: [422, "link_login_only must be the router's own address on its network (gateway_ip)"],
  uamipNotGateway: [422, "uamip is not the router's own address (gateway_ip)"],
  chapIdInvalid: [422, 'chap_id must be one octet in octal escapes, such as \\371'],
  chapChallengeInvalid: [422, 'chap_challenge must be 16 octets in octal escapes'],
  chapIncomplete: [422, 'chap_id and chap_challenge must be sent together'],
  dstInvalid: [422, 'dst must be an http or https URL'],

  // Returning guests (DESIGN.md §4.8)
  loginValuesInvalid: [422, 'username and password must be non-empty strings'],
  invalidLogin: [401, 'invalid login'],
  grantUsedUp: [409, 'the data allowance is used up'],
  purchaseKeyMismatch: [403, 'purchase key does not match this invoice'],
  grantNotPaid: [409, 'the invoice is not paid'],
  grantExpired: [409, 'the access has expired'],
  grantRevoked: [409, 'the access has been revoked'],
  grantNotFound: [404, 'access grant not found'],

  // Vouchers (DESIGN.md §4.8, docs/decisions/0027-vouchers.md)
  voucherUnknown: [404, 'unknown voucher'],
  voucherUsed: [409, 'the voucher has already been used'],
  voucherRevoked: [409, 'the voucher has been revoked'],
  voucherExpired: [409, 'the voucher has expired'],
  voucherBatchNotFound: [404, 'voucher batch not found'],
  voucherNotFound: [404, 'voucher not found'],
  voucherPlanInvalid: [422, 'plan_id must be the id of a plan you can see'],
  voucherCountInvalid: [422, 'count must be a whole number from 1 to 1000'],
  voucherPrefixInvalid: [
    422,
    'prefix must be 1-8 characters of ABCDEFGHJKMNPQRSTUVWXYZ23456789 (no 0, 1, I, L or O)',
  ],
  voucherLengthInvalid: [422, 'length must be a whole number from 8 to 20'],
  voucherValidUntilInvalid: [
    422,
    'valid_until must be a future date (YYYY-MM-DD) or ISO-8601 instant, or null',
  ],
  voucherPrintFormatInvalid: [422, 'format must be a4 or thermal58'],
  voucherPrintCodesInvalid: [422, 'codes must be a list of 1 to 1000 voucher codes'],

  // Payment events
  paymentInvoiceUnknown: [422, 'no invoice with this number'],
  paymentAmountMismatch: [422, 'amount does not match the invoice'],

  // Staff (admin API)
  notAuthenticated: [401, 'not authenticated'],
  forbidden: [403, 'your staff role does not allow this'],
  originNotAllowed: [403, 'origin not allowed'],
  invalidCredentials: [401, 'invalid email or password'],
  notStaff: [403, 'this account has no staff role'],
  mfaRequired: [401, 'mfa code required'],
  mfaInvalid: [401, 'invalid mfa code'],

  // SMS (admin API)
  smsRecipientInvalid: [422, 'recipient must be a phone number'],
  smsMessageInvalid: [422, 'message must be 1-1600 bytes'],
  smsSenderInvalid: [422, 'sender_id must be 1-11 letters or digits'],
  smsGatewayRefused: [502, 'the SMS gateway did not accept the message'],

  // Plans
  planNotFound: [404, 'plan not found'],
  planNameInvalid: [422, 'name must be 1-100 characters'],
  planDescriptionInvalid: [422, 'description must be at most 1000 characters'],
  planPriceInvalid: [422, 'price_tzs must be a whole number of at least 500'],
  planDurationInvalid: [422, 'duration_seconds must be a positive whole number'],
  planDataLimitInvalid: [422, 'data_limit_bytes must be a positive whole number or null'],
  planActiveInvalid: [422, 'active must be true or false'],
  planSortOrderInvalid: [422, 'sort_order must be a whole number'],
  planMaxDevicesInvalid: [422, 'max_devices must be a whole number from 1 to 100'],
  planDownloadInvalid: [422, 'download_kbps must be a whole number of kbit/s from 64 to 4000000, or null'],
  planUploadInvalid: [422, 'upload_kbps must be a whole number of kbit/s from 64 to 4000000, or null'],
  planRememberDeviceInvalid: [422, 'remember_device must be true or false'],
  // Archiving (docs/decisions/0037-archive.md)
  planArchived: [409, 'the plan is archived: unarchive it first'],
  planAlreadyArchived: [409, 'the plan is already archived'],
  planNotArchived: [409, 'the plan is not archived'],
  planInUse: [
    409,
    'the plan has been sold or has voucher batches, so it cannot be deleted: archive it instead',
  ],

  // Sites (DESIGN.md §4.9, docs/decisions/0024-sites.md)
  siteNotFound: [404, 'site not found'],
  siteIdInvalid: [422, 'site_id must be the id or slug of a site you can see'],
  siteInvalid: [422, 'site must be the id or slug of a site you can see'],
  siteIdRequired: [422, 'site_id is required: your role covers several sites'],
  siteRefUnknown: [422, 'no site has this id or slug'],
  siteSlugInvalid: [
    422,
    'slug must be 1-40 lower-case letters, digits or hyphens, starting with a letter or digit',
  ],
  siteSlugTaken: [409, 'a site with this slug already exists'],
  siteNameInvalid: [422, 'name must be 1-100 characters'],
  siteDisplayNameInvalid: [422, 'display_name must be 1-100 characters, or null'],
  siteLogoInvalid: [
    422,
    'logo must be a PNG, JPEG, GIF or WebP image of at most 100 KB as a base64 data: URL, or null',
  ],
  siteBrandColorInvalid: [
    422,
    'brand_color must be a #rrggbb colour with a contrast of at least 4.5:1 against white, or null',
  ],
  siteBackgroundColorInvalid: [
    422,
    'background_color must be a #rrggbb colour with a contrast of at least 4.5:1 against the grey text #57606a, or null',
  ],
  siteTimeZoneInvalid: [422, 'time_zone must be an IANA time zone such as Africa/Dar_es_Salaam, or null'],
  sitePaymentAccountsInvalid: [
    422,
    'payment_accounts must map selcom (api_key, api_secret, vendor) or azampay (app_name, client_id, client_secret, api_key) to every one of its credentials, or to null',
  ],
  ownerNotScoped: [422, 'an owner covers every site: an owner cannot be limited to sites'],

  // RADIUS sessions
  sessionNotFound: [404, 'session not found'],

  // Devices
  deviceNotFound: [404, 'device not found'],
  deviceNameInvalid: [422, 'name must be 1-100 characters'],
  deviceModelInvalid: [422, 'model must be 1-100 characters'],
  deviceMacInvalid: [422, 'mac_address must be six colon-separated hex pairs'],
  deviceNetworkInvalid: [422, 'local_network must be an IPv4 CIDR such as 10.1.0.0/24'],
  deviceUamServerInvalid: [422, 'uam_server must be an http or https URL'],
  deviceNasIdInvalid: [422, 'radius_nas_id must be 1-253 printable characters'],
  deviceClientIpInvalid: [422, 'radius_client_ip must be an IP address'],
  deviceCoaPortInvalid: [422, 'coa_port must be a port number 1-65535'],
  deviceSecretInvalid: [422, 'radius secret must be 16-128 printable characters without spaces'],
  deviceUamSecretInvalid: [422, 'uam secret must be 1-128 printable characters without spaces'],
  deviceUamAuthInvalid: [422, 'uam_auth must be chap or pap'],
  deviceMessageAuthInvalid: [422, 'require_message_authenticator must be true or false'],
  deviceGatewayInvalid: [422, 'gateway_ip must be an IPv4 address inside local_network'],
  deviceTunnelAddressInvalid: [422, 'tunnel_address must be an IPv4 address inside the WireGuard subnet'],
  deviceTunnelKeyInvalid: [422, 'tunnel_public_key must be a WireGuard public key (44 base64 characters)'],
  deviceNasIdTaken: [409, 'a device with this radius_nas_id is already registered'],
  deviceMacTaken: [409, 'a device with this mac_address is already registered'],
  deviceAlreadyArchived: [409, 'the router is already archived'],
  deviceNotArchived: [409, 'the router is not archived'],
  deviceHasLiveSessions: [
    409,
    'the router has live sessions: disconnect them first, or archive with force to disconnect them (the guests keep their access)',
  ],
  deviceInUse: [409, 'the router has had sessions, so it cannot be deleted: archive it instead'],
  routerConfigFormatInvalid: [422, 'format must be routeros, coovachilli or openwrt'],
  radiusAddressInvalid: [422, 'radius_address must be an IPv4 address'],
  wireguardNotConfigured: [
    409,
    'this router is remote over WireGuard, but WIREGUARD_ENDPOINT, WIREGUARD_PUBLIC_KEY and WIREGUARD_ADDRESS are not all set',
  ],
  radiusDisabled: [409, 'RADIUS is off on this box (RADIUS_AUTH_PORT or RADIUS_ACCT_PORT is 0)'],
});

/**
 * A print request naming codes that cannot be printed (not of this batch, or no longer unused):
 * 422 with how many, and nothing is printed.
 */
export const voucherCodesRefused = (refused: number, total: number): AppError =>
  new AppError(
    'voucherCodesRefused',
    422,
    `${
      total === 1
        ? 'the code is not an unused code'
        : `${String(refused)} of the ${String(total)} codes ${refused === 1 ? 'is not an unused code' : 'are not unused codes'}`
    } of this batch (used, revoked, expired or unknown): nothing was printed`,
  );
