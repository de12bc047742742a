import type { ConsoleTables } from './tables/console.js';
import type { CoreTables } from './tables/core.js';
import type { IdentityTables, SocialTables } from './tables/identity.js';
import type { OauthTables } from './tables/oauth.js';
import type { RadiusTables } from './tables/radius.js';
import type { SiteTables } from './tables/sites.js';
import type { WifiTables } from './tables/wifi.js';

/**
 * Row types of every table, as stored, one file per feature under tables/. Timestamps are
 * ISO-8601 UTC strings; booleans are integers 0/1 (portable between SQLite and PostgreSQL).
 */
export interface DB
  extends
    CoreTables,
    IdentityTables,
    SocialTables,
    WifiTables,
    ConsoleTables,
    OauthTables,
    RadiusTables,
    SiteTables {}
