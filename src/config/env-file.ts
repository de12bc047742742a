import { parseEnv } from 'node:util';
import { settingList } from './settings.js';

/**
 * Writing the env file (`hotspot-ctl setup`): the settings table decides the order and the
 * comment above each value; only values that differ from their default are written, so a later
 * release's better default still applies to everything the operator never chose.
 */

const BARE = /^[A-Za-z0-9_./:@,+=%-]*$/;

/** A value as the env file parser (node:util parseEnv) reads it back; null when it cannot be written. */
function quote(value: string): string | null {
  if (value.includes('\n') || value.includes('\r')) return null;
  if (BARE.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"') && !value.includes('\\')) return `"${value}"`;
  return null;
}

/** The names whose values could not be written (a newline, or both kinds of quotes). */
export function unwritable(values: Readonly<Record<string, string>>): string[] {
  return Object.entries(values)
    .filter(([, v]) => quote(v) === null)
    .map(([k]) => k);
}

/** The env file for `values` (names from the settings table; defaults left out), header first. */
export function renderEnvFile(values: Readonly<Record<string, string>>, header: string): string {
  const lines = [`# ${header}`, '# One NAME=value per line; see the README for every setting.', ''];
  for (const s of settingList()) {
    const value = values[s.env];
    if (value === undefined || value === s.default) continue;
    const written = quote(value);
    if (written === null) throw new Error(`${s.env} cannot be written to an env file`);
    lines.push(`# ${s.doc}`, `${s.env}=${written}`, '');
  }
  const text = lines.join('\n');
  // What the daemon will read must be exactly what was chosen.
  const back = parseEnv(text);
  for (const [k, v] of Object.entries(values)) {
    const s = settingList().find((x) => x.env === k);
    if (s && v !== s.default && back[k] !== v) throw new Error(`${k} does not read back as written`);
  }
  return text;
}
