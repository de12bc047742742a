/** The console feature's public surface. */
export { consoleRoutes } from './console.routes.js';
export { clientSecretMatches, findClient, publicClient, setFirstParty } from './clients.js';
export { listAllClients } from './operator.js';
export type { ClientRow, ClientStatus } from './clients.js';
export type { ClientGrantStats } from './ports.js';
export { consoleErrors } from './errors.js';
export { KNOWN_SCOPES } from './rules.js';
