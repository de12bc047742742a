import { createHash, createHmac, type Hash } from 'node:crypto';
import { HmacMd5 } from '../../src/radius/hmac.js';

/**
 * HMAC-MD5 three ways over a packet-sized message, CPU time per digest (the least of ROUNDS):
 * createHmac (key setup every time), pad states (each pad block hashed once into a createHash
 * state, every digest from two Hash.copy()), and pad blocks (src/radius/hmac.ts: the pads made
 * once, two one-shot MD5 calls). Checks that all three agree first.
 *
 *   TS_NODE_TRANSPILE_ONLY=1 node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/radius/hmac.ts
 */

const N = Number(process.env.N ?? 200_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const secret = 'bench-secret-0123456789';
const message = Buffer.alloc(120, 7); // an Access-Request with a few attributes

/** The pad-state variant, for comparison only. */
function padStates(key: string): (m: Buffer) => Buffer {
  const k = Buffer.from(key);
  const pad = (byte: number): Hash => {
    const block = Buffer.alloc(64, byte);
    for (let i = 0; i < k.length; i++) block[i] = (k[i] ?? 0) ^ byte;
    return createHash('md5').update(block);
  };
  const inner = pad(0x36);
  const outer = pad(0x5c);
  return (m) => outer.copy().update(inner.copy().update(m).digest()).digest();
}

const blocks = new HmacMd5(secret);
const states = padStates(secret);
const variants: Record<string, () => Buffer> = {
  createHmac: () => createHmac('md5', secret).update(message).digest(),
  'pad states (Hash.copy)': () => states(message),
  'pad blocks (hmac.ts)': () => blocks.digest(message),
};
const reference = createHmac('md5', secret).update(message).digest();
for (const [name, run] of Object.entries(variants))
  if (!run().equals(reference)) throw new Error(`bench/radius/hmac: ${name} disagrees with createHmac`);

const best: Record<string, number> = {};
for (let r = 0; r < ROUNDS; r++)
  for (const [name, run] of Object.entries(variants)) {
    for (let i = 0; i < 20_000; i++) run();
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) run();
    const used = process.cpuUsage(before);
    const ns = ((used.user + used.system) * 1000) / N;
    best[name] = Math.min(best[name] ?? Infinity, ns);
  }
const base = best.createHmac ?? 1;
for (const [name, ns] of Object.entries(best))
  process.stdout.write(
    `${name.padEnd(24)} ${ns.toFixed(0).padStart(6)} ns CPU per digest   ${(ns / base).toFixed(2)}× createHmac\n`,
  );
