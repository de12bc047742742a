import { lazy } from '../lib/lazy.js';

/** The interactive prompts (setup wizard, typed passwords), loaded by the first question: bench/footprint.ts. */
export const prompts = lazy('@inquirer/prompts', () => import('@inquirer/prompts'));
