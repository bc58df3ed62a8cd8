/** @module One notifier per storage: tells whoever waits that animals arrived, without anyone polling. */

/** Listeners told when animals arrive in a catalogue. */
export interface Arrivals {
  /** Tells every listener, each once, that animals arrived. */
  notify(): void;
  /** Listens until the function returned is called. */
  subscribe(listener: () => void): () => void;
  /** How many listen now. */
  readonly size: number;
}

/**
 * Creates a notifier. A storage holds one and notifies after animals become visible (a
 * create, a push stored, pulled animals kept, another instance's commit); each waiting pull
 * subscribes. One arrival costs one call per waiting pull, and nothing costs anything
 * between arrivals. A listener that throws is not told again and does not stop the others.
 */
export const createArrivals = (): Arrivals => {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch {
          listeners.delete(listener);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return listeners.size;
    },
  };
};
