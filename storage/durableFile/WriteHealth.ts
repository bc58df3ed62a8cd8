/** @module Whether a data file can be written now: the last write's outcome, or a cheap probe at most once a second. */
import type { StorageHealth } from '../../core/PetStorage.js';

/** How long an outcome (of a write or a probe) answers for the health of the disk. */
const FRESH_MILLISECONDS = 1_000;

/**
 * The health of the disk under a data file. A write that succeeds or fails says it for the
 * next second; after that, a health check probes (writes and fsyncs a small file, see
 * `DurableTextFile.probe`), so the storage reports healthy again once the disk works again,
 * even when no create came in the meantime, and reports a full disk before a create meets
 * it. Concurrent checks share one probe, and probes run at most once a second however
 * often `/healthz` is asked.
 */
export class WriteHealth {
  readonly #probe: () => Promise<void>;
  readonly #now: () => number;
  #last: { at: number; health: StorageHealth } | undefined;
  #probing: Promise<StorageHealth> | undefined;

  /**
   * @param probe Resolves when a write could be made durable now; rejects with an error whose
   *   message is the one-line reason it could not.
   */
  constructor(probe: () => Promise<void>, now: () => number = Date.now) {
    this.#probe = probe;
    this.#now = now;
  }

  /** A write succeeded. */
  succeeded(): void {
    this.#last = { at: this.#now(), health: { ok: true } };
  }

  /** A write failed, for this reason (one line, naming the file and the cause). */
  failed(reason: string): void {
    this.#last = { at: this.#now(), health: { ok: false, reason } };
  }

  /** The disk's health: the outcome of the last second, or of a probe made now. */
  check(): Promise<StorageHealth> {
    if (this.#last && this.#now() - this.#last.at < FRESH_MILLISECONDS) return Promise.resolve(this.#last.health);
    this.#probing ??= this.#probe()
      .then(
        (): StorageHealth => ({ ok: true }),
        (error: unknown): StorageHealth => ({ ok: false, reason: error instanceof Error ? error.message : String(error) }),
      )
      .then((health) => {
        this.#last = { at: this.#now(), health };
        this.#probing = undefined;
        return health;
      });
    return this.#probing;
  }
}
