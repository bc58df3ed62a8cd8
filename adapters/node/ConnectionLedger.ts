/**
 * @module The connection caps' bookkeeping and decisions, apart from sockets and clocks: which
 * connections are open, from which address, since when they have gone without a complete
 * request, and, when a new one would pass a cap, which to close to make room or whether to
 * refuse it.
 */

/**
 * How a connection stands. `busy`: a complete request is being answered (never closed to make
 * room). `idle`: a keep-alive connection between requests. `unfinished`: no complete request
 * yet (nothing sent, or headers or a body still arriving).
 */
export type ConnectionPhase = 'busy' | 'idle' | 'unfinished';

/** The caps a ledger keeps. */
export interface LedgerLimits {
  /** Connections open at once, from everyone. */
  maxConnections: number;
  /** Connections open at once from one address that is not exempt. */
  maxConnectionsPerAddress: number;
  /**
   * Milliseconds a connection must have gone without a complete request before it may be
   * closed to make room: a client that has just connected, or has just been answered, is
   * sending its request, and closing it then would cut that request.
   */
  shedAfter: number;
}

/** What to do with a new connection: admit it after closing `shed` (oldest first), or refuse it. */
export type Admission<Id> = { admitted: true; shed: Id[] } | { admitted: false; shed: [] };

interface LedgerEntry<Id> {
  id: Id;
  address: string;
  /** When the connection opened or was last answered in full: since when it has owed us a request. */
  since: number;
}

/** Entries in order of `since`, oldest first (a Map iterates in insertion order; see `rested`). */
type Queue<Id> = Map<Id, LedgerEntry<Id>>;

/**
 * The first connection of `queue` (oldest first) that may be closed to make room: not busy,
 * and without a complete request for at least `shedAfter` milliseconds. Idle keep-alives and
 * unfinished requests are judged alike, by how long they have held a place without using
 * it, so a slow client never outlasts a well-behaved one that is between two requests.
 */
export const firstToShed = <Id>(
  queue: Iterable<{ id: Id; since: number }>,
  phaseOf: (id: Id) => ConnectionPhase,
  now: number,
  shedAfter: number,
): Id | undefined => {
  for (const { id, since } of queue) {
    // The queue is ordered by `since`: past this one, every connection is younger still.
    if (now - since < shedAfter) return undefined;
    if (phaseOf(id) !== 'busy') return id;
  }
  return undefined;
};

/**
 * Keeps the open connections of one server. The caller tells it what happens to each
 * connection (`admit`, `rested`, `closed`) and closes what `admit` says; `phaseOf` tells it,
 * when it must choose, how a connection stands right then.
 */
export class ConnectionLedger<Id> {
  readonly #limits: LedgerLimits;
  readonly #phaseOf: (id: Id) => ConnectionPhase;
  readonly #all: Queue<Id> = new Map();
  readonly #byAddress = new Map<string, Queue<Id>>();

  constructor(limits: LedgerLimits, phaseOf: (id: Id) => ConnectionPhase) {
    this.#limits = limits;
    this.#phaseOf = phaseOf;
  }

  /** Connections open, in all. */
  get size(): number {
    return this.#all.size;
  }

  /** Connections open from one address. */
  countFrom(address: string): number {
    return this.#byAddress.get(address)?.size ?? 0;
  }

  /**
   * Decides on a new connection from `address` and records it when admitted. Room is made
   * under the address's cap from that address's own connections, and under the total cap
   * from anyone's; a connection is refused only when no open one may be closed.
   */
  admit(id: Id, address: string, exempt: boolean, now: number): Admission<Id> {
    const { maxConnections, maxConnectionsPerAddress, shedAfter } = this.#limits;
    const shed: Id[] = [];
    const own = this.#byAddress.get(address);
    if (!exempt && own !== undefined && own.size >= maxConnectionsPerAddress) {
      const victim = firstToShed(own.values(), this.#phaseOf, now, shedAfter);
      if (victim === undefined) return { admitted: false, shed: [] };
      shed.push(victim);
    }
    if (this.#all.size - shed.length >= maxConnections) {
      // The address's own victim is already on its way out: not a second time.
      const chosen = shed[0];
      const victim = firstToShed(this.#all.values(), (open) => (open === chosen ? 'busy' : this.#phaseOf(open)), now, shedAfter);
      if (victim === undefined) return { admitted: false, shed: [] };
      shed.push(victim);
    }
    for (const victim of shed) this.closed(victim);
    const entry = { id, address, since: now };
    this.#all.set(id, entry);
    const queue = own ?? new Map<Id, LedgerEntry<Id>>();
    queue.set(id, entry);
    this.#byAddress.set(address, queue);
    return { admitted: true, shed };
  }

  /** A connection has been answered everything it asked: from now on it owes a request again. */
  rested(id: Id, now: number): void {
    const entry = this.#all.get(id);
    if (entry === undefined) return;
    entry.since = now;
    // Moved to the back of both queues, which keeps them in order of `since`.
    this.#all.delete(id);
    this.#all.set(id, entry);
    const queue = this.#byAddress.get(entry.address)!;
    queue.delete(id);
    queue.set(id, entry);
  }

  /** A connection is gone (or is being closed): its place is free. */
  closed(id: Id): void {
    const entry = this.#all.get(id);
    if (entry === undefined) return;
    this.#all.delete(id);
    const queue = this.#byAddress.get(entry.address)!;
    queue.delete(id);
    if (queue.size === 0) this.#byAddress.delete(entry.address);
  }
}
