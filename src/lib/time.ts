import type { Clock } from './clock.js';

/** ISO-8601 UTC timestamps: the one format stored and sent (they sort as text). */
export const isoNow = (clock: Clock): string => clock.now().toISOString();

export const isoIn = (clock: Clock, seconds: number): string =>
  new Date(clock.now().getTime() + seconds * 1000).toISOString();

export const isoAgo = (clock: Clock, seconds: number): string =>
  new Date(clock.now().getTime() - seconds * 1000).toISOString();
