/** @module The client's memory of recent answers, so a repeated GET costs a 304 instead of the body. */

/** An answer worth keeping: its tag, its body and its Link header. */
export interface CachedAnswer {
  etag: string;
  text: string;
  link: string | null;
}

/**
 * The last answers by URL, at most `capacity` of them, the least recently used dropped
 * first. A dashboard polling the same few pages revalidates them with If-None-Match, and an
 * unchanged page comes back as a bodiless 304.
 */
export class RevalidationCache {
  readonly #answers = new Map<string, CachedAnswer>();
  readonly #capacity: number;

  constructor(capacity = 64) {
    this.#capacity = capacity;
  }

  /** The answer kept for `url`, marked as just used. */
  get(url: string): CachedAnswer | undefined {
    const answer = this.#answers.get(url);
    if (answer) {
      this.#answers.delete(url);
      this.#answers.set(url, answer);
    }
    return answer;
  }

  /** Keeps an answer for `url`, dropping the least recently used beyond capacity. */
  set(url: string, answer: CachedAnswer): void {
    this.#answers.delete(url);
    this.#answers.set(url, answer);
    if (this.#answers.size > this.#capacity) this.#answers.delete(this.#answers.keys().next().value!);
  }
}
