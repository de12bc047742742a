import { errorCatalogue } from '../lib/errors.js';

/** Developer console errors; the quoted ones are identity-service.md §4.8's exact messages. */
export const consoleErrors = errorCatalogue({
  invalidBody: [400, 'invalid request body'],
  projectNotFound: [404, 'project not found'],
  clientNotFound: [404, 'client not found'],
  projectArchived: [403, 'this project is archived'],
  nameInvalid: [400, 'name must be between 1 and 100 characters'],
  projectQuota: [400, 'quota exceeded: project limit of 25 reached'],
  clientQuota: [400, 'quota exceeded: client limit of 25 reached'],
  clientTypeInvalid: [400, 'client_type must be public or confidential'],
  redirectUrisCount: [400, 'redirect_uris must contain between 1 and 20 URIs'],
  redirectUriInvalid: [400, 'each redirect URI must be an absolute scheme://… URI of at most 512 characters'],
  redirectUriWildcard: [400, 'redirect URIs may not contain wildcards'],
  redirectUriScheme: [400, 'redirect URI scheme must be https, http or a custom app scheme'],
  scopesRequired: [400, 'allowed_scopes must contain at least one of openid, profile, email, phone'],
  scopeUnknown: [400, 'allowed_scopes may only contain openid, profile, email, phone'],
  urlInvalid: [400, 'logo_url, homepage_url and privacy_policy_url must be http:// or https:// URLs'],
  statusInvalid: [400, 'status must be testing, production or disabled'],
  statusTransition: [400, 'a production client cannot go back to testing; disable it instead'],
  alreadyDisabled: [400, 'the client is already disabled'],
  publishingGate: [400, 'publishing requires at least one https:// redirect_uri and a homepage_url'],
  publicNoSecret: [400, 'public clients have no secret to rotate'],
});
