import path from 'node:path';
import radius from 'radius';
import { packageRoot } from '../lib/paths.js';

/**
 * The `radius` package keeps one global attribute dictionary and loads it lazily, once: a
 * dictionary added after the first encode/decode is ignored. This module adds ours (the top-level
 * `radius/` folder: ChilliSpot/CoovaChilli, MikroTik, WISPr) and forces a reload, exactly once per
 * process, before any packet is handled. Standard attributes come with the package itself.
 */

let loaded = false;

export function dictionaryDir(): string {
  return path.join(packageRoot(), 'radius');
}

export function ensureDictionaries(): void {
  if (loaded) return;
  radius.add_dictionary(dictionaryDir());
  radius.unload_dictionaries(); // forget a load that happened before ours was added
  loaded = true;
}

/** Vendor ids of the dictionaries we ship. */
export const VENDOR = { chillispot: 14559, mikrotik: 14988, wispr: 14122 } as const;
