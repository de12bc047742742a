import type { Clock } from '../lib/clock.js';

/**
 * When each router's last valid RADIUS packet arrived (DESIGN.md §4.7 router health), kept in
 * memory by the listener and written to the devices now and then (`drain`): a write per packet
 * would cost the hot path a transaction.
 */
export class LastSeen {
  /** Device id → when it was last heard from (ms), since the last drain. */
  #pending = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  seen(deviceId: string): void {
    this.#pending.set(deviceId, this.clock.now().getTime());
  }

  /** A sighting another process made (a RADIUS worker's, workers.ts): the latest one counts. */
  seenAt(deviceId: string, ms: number): void {
    if ((this.#pending.get(deviceId) ?? -Infinity) < ms) this.#pending.set(deviceId, ms);
  }

  /** What was heard since the last drain, device id → ISO time; forgotten here. */
  drain(): Map<string, string> {
    const out = new Map([...this.#pending].map(([id, ms]) => [id, new Date(ms).toISOString()]));
    this.#pending = new Map();
    return out;
  }

  /** Gives back what a failed write took, unless a newer sighting came since. */
  undrain(seen: ReadonlyMap<string, string>): void {
    for (const [id, at] of seen) if (!this.#pending.has(id)) this.#pending.set(id, Date.parse(at));
  }
}
