/** @module The kiosk's background replicator: leases ids ahead of need, pushes local creates, pulls the hub's feed. */
import type { PetStorage } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import type { SyncStatus } from '../../core/schemas/SyncSchemas.js';
import { createSyncClient, type SyncClient, SyncHubError } from '../../core/sync/createSyncClient.js';
import type { SyncStorage } from '../../core/sync/SyncStorage.js';
import { idsIn, idsLeft } from '../../storage/sync/syncState.js';
import { createLeasePolicy, LEASE_LOW_WATER } from './createLeasePolicy.js';
import { retryCreatesWhenLeased } from './retryCreatesWhenLeased.js';

export { LEASE_LOW_WATER };

/** How a kiosk syncs. */
export interface ReplicatorOptions {
  /** The kiosk's own storage; it must be able to sync (memory or a JSON data file). */
  storage: PetStorage;
  /** The hub's base URL, such as `https://hub.example/v1`. */
  hub: string;
  /** A key the hub accepts. */
  key: string;
  /** Seconds between rounds of sync; 5 by default. */
  intervalSeconds?: number;
  /**
   * Seconds each live pull may wait at the hub for an animal (1 to 60; 25 by default, under
   * the 30 s idle cut of most proxies); 0 turns live pulls off, leaving the rounds alone.
   */
  waitSeconds?: number;
  /** Where the replicator reports: reachability changes and failures. */
  log?: { info?(message: string, fields?: Record<string, unknown>): void; warn?(message: string, fields?: Record<string, unknown>): void };
  /** The client of the hub; made from `hub` and `key` by default (tests pass their own). */
  client?: SyncClient;
  /** The wall clock; `Date.now` by default. */
  now?: () => number;
}

/** A running replicator. */
export interface Replicator {
  /** The kiosk's sync state, as `GET {base}/sync/status` shows it. */
  status(): Promise<SyncStatus>;
  /** Runs a round now (or waits for the one running), and resolves when it ends, whether or not the hub was reached. */
  syncNow(): Promise<void>;
  /** Stops the rounds; resolves once the round in flight (if any) ended. */
  stop(): Promise<void>;
  /**
   * The kiosk's storage as a service should be given it: the same storage, but a create that
   * finds no leased id left waits up to `LEASE_WAIT_MILLISECONDS` for the lease of the round
   * running, or of one it asks for when the last round went well, before it is refused; a
   * refused one says why when the hub refuses the kiosk's sync key.
   */
  readonly storage: PetStorage;
}

/** What the status, the log and refused creates say when the hub refuses the kiosk's key (401 or 403). */
const keyRefusal = (hub: string, status: number, detail: string): { problem: string; forCreates: string } => ({
  problem: `the hub ${hub} refuses this kiosk's sync key: it answered ${status} (${detail}); give --sync-key (or ANIMAL_STORE_SYNC_KEY) a key the hub accepts`,
  forCreates: `The hub refuses this kiosk's sync key (it answered ${status}), so it leases no ids to this kiosk: the operator must give the kiosk a sync key the hub accepts.`,
});

/** The most animals one push carries, and the bytes of their JSON: under the hub's 64 KiB body limit. */
const PUSH_BATCH = 500;
const PUSH_BYTES = 60_000;
/** The animals one pull asks for. */
const PULL_BATCH = 1000;
/** How long after a local create its push starts: creates that come together go up together. */
const PUSH_DELAY_MILLISECONDS = 50;
/**
 * How long a create that finds no leased id left waits for a round's lease before it is
 * refused (503): time for a lease from a reachable hub, short enough that a client told to
 * retry is not kept waiting long when the hub cannot be reached.
 */
export const LEASE_WAIT_MILLISECONDS = 2000;
/** The default wait of a live pull, in seconds: under the 30 s idle timeout of most proxies. */
export const LIVE_PULL_WAIT_SECONDS = 25;

/** Resolves after `milliseconds`, or at once when `signal` aborts. */
const waitUnlessStopped = (milliseconds: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });

/**
 * Starts syncing `storage` with its hub: joins the hub durably (throws a SyncJoinError when
 * the storage holds animals made without sync, or joined another hub), then runs a round at
 * once and one every `intervalSeconds` after the last ended. A round leases ids while fewer
 * are left than the kiosk gives in a second at its recent rate (at least `LEASE_LOW_WATER`,
 * at most two blocks: see createLeasePolicy), pushes every local create not pushed yet (in
 * arrival order, from the durable `pushedThrough`), and pulls from the durable checkpoint
 * until it has caught up. Each step is idempotent and resumes from what the storage holds,
 * so a kill at any point loses nothing and repeats only harmless work. Local requests never
 * wait on a round.
 */
export const startReplicator = async (options: ReplicatorOptions): Promise<Replicator> => {
  const { storage, hub, key, intervalSeconds = 5, waitSeconds = LIVE_PULL_WAIT_SECONDS, log = {}, now = Date.now } = options;
  if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 60) {
    throw new TypeError(`waitSeconds must be a whole number from 0 to 60, not ${String(waitSeconds)}.`);
  }
  const sync: SyncStorage | undefined = storage.sync;
  if (!sync) throw new TypeError('This storage cannot sync: a kiosk keeps its animals in memory or in a JSON data file.');
  await sync.join(hub);
  const client = options.client ?? createSyncClient({ hub, key });

  let reachable = false;
  let problem: string | null = 'not tried yet';
  /** Set while the hub refuses the key: what refused creates say. */
  let refusedKey: string | undefined;
  let lastPush: number | undefined;
  let lastPull: number | undefined;
  let round: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  /** Set when a round is asked for while one runs: another runs right after it. */
  let again = false;
  const live = new AbortController();

  // Creates that found no leased id left: woken when a block is kept, or when the rounds
  // end without one (see waitForLease).
  const leaseWaiters = new Set<() => void>();
  const wakeLeaseWaiters = () => {
    for (const wake of leaseWaiters) wake();
  };

  const leasePolicy = createLeasePolicy(now);
  /** Leases up to two blocks, while the policy asks for more ids than are left. */
  const leaseAhead = async () => {
    for (let leases = 0; leases < 2; leases++) {
      const kiosk = await sync.kiosk();
      const last = kiosk?.blocks.at(-1);
      if (kiosk === undefined || !leasePolicy.shouldLease(idsLeft(kiosk), last ? idsIn(last) : 0)) return;
      const block = await client.lease();
      await sync.addBlock(block);
      leasePolicy.leased(idsIn(block));
      wakeLeaseWaiters();
    }
  };

  const pushAll = async (): Promise<number> => {
    let pushed = 0;
    for (;;) {
      const { pets, through } = await sync.unpushed(PUSH_BATCH);
      const batch: Pet[] = [];
      let bytes = 0;
      for (const pet of pets) {
        bytes += JSON.stringify(pet).length * 3 + 1;
        if (batch.length > 0 && bytes > PUSH_BYTES) break;
        batch.push(pet);
      }
      const cut = batch.length < pets.length;
      const pushedThrough = (await sync.kiosk())?.pushedThrough ?? 0;
      if (batch.length > 0) {
        pushed += (await client.push(batch)).stored;
        // The last push the hub answered, whatever it stored; a round that pushes nothing is no exchange.
        lastPush = now();
      }
      const reached = cut ? batch.at(-1)!.id : through;
      if (reached !== pushedThrough) await sync.markPushed(reached);
      if (!cut && pets.length < PUSH_BATCH) return pushed;
    }
  };

  const pullAll = async (): Promise<number> => {
    let pulled = 0;
    for (;;) {
      const checkpoint = (await sync.kiosk())?.checkpoint ?? 0;
      const answer = await client.pull(checkpoint, PULL_BATCH);
      lastPull = now();
      if (answer.pets.length > 0 || answer.checkpoint !== checkpoint) pulled += await sync.insertPulled(answer.pets, answer.checkpoint);
      if (answer.pets.length < PULL_BATCH) return pulled;
    }
  };

  /** Leases ahead; a hub refusing the lease (429: too many unused blocks) does not stop the push and pull. */
  const leaseOrSayWhyNot = async (): Promise<string | null> => {
    try {
      await leaseAhead();
      return null;
    } catch (error) {
      if (!(error instanceof SyncHubError) || error.status !== 429) throw error;
      return error.message;
    }
  };

  const runRound = async () => {
    try {
      const leaseProblem = await leaseOrSayWhyNot();
      const pushed = await pushAll();
      const pulled = await pullAll();
      if (!reachable) log.info?.(`sync: reached the hub ${hub}`, { hub });
      if (pushed > 0 || pulled > 0) log.info?.(`sync: pushed ${pushed} and pulled ${pulled} animals`, { hub, pushed, pulled });
      if (leaseProblem !== null && leaseProblem !== problem) log.warn?.(`sync: ${leaseProblem}`, { hub });
      reachable = true;
      problem = leaseProblem;
      refusedKey = undefined;
    } catch (error) {
      // Never the key itself, whatever a hub's answer echoes.
      const message = (error instanceof Error ? error.message : String(error)).replaceAll(key, '[the sync key]');
      let reason = message;
      refusedKey = undefined;
      if (error instanceof SyncHubError && (error.status === 401 || error.status === 403)) {
        const detail = message.replace(/^the hub \S+ answered [0-9]+: /, '');
        const refusal = keyRefusal(hub, error.status, detail);
        reason = refusal.problem;
        refusedKey = refusal.forCreates;
      }
      // Once per reason, not every round.
      if (reachable || problem !== reason) log.warn?.(`sync: ${reason}; local creates are kept and go up once the hub is reached`, { hub });
      reachable = false;
      problem = reason;
    }
  };

  const syncNow = (): Promise<void> => {
    round ??= (async () => {
      do {
        again = false;
        await runRound();
      } while (again && !stopped);
    })().finally(() => {
      round = undefined;
      // Creates still waiting got no block of these rounds (the hub out of reach, or refusing): they are refused now.
      wakeLeaseWaiters();
    });
    return round;
  };
  /** A round that starts after now (the one running may have passed the step that was wanted). */
  const roundAfterNow = (): Promise<void> => {
    if (round === undefined) return syncNow();
    again = true;
    return round;
  };

  /**
   * Resolves once a round kept a block, or the rounds ended without one, or after
   * `LEASE_WAIT_MILLISECONDS`. After a round that went well it asks for a round that starts
   * after now (the one running may have passed its lease step). After one that could not
   * lease (the hub out of reach, refusing the key or a lease) it only waits for a round
   * already running, and resolves at once without one: the scheduled rounds try again, where
   * a round for every refused create would press the hub as fast as clients retry.
   */
  const waitForLease = (): Promise<void> => {
    const mayAsk = reachable && problem === null;
    if (stopped || (round === undefined && !mayAsk)) return Promise.resolve();
    const leased = new Promise<void>((resolve) => {
      const timer = setTimeout(wake, LEASE_WAIT_MILLISECONDS);
      function wake() {
        clearTimeout(timer);
        leaseWaiters.delete(wake);
        resolve();
      }
      leaseWaiters.add(wake);
    });
    if (mayAsk) void roundAfterNow();
    return leased;
  };

  // A local create goes up within a moment, not at the next round.
  let pushSoon: ReturnType<typeof setTimeout> | undefined;
  const stopListening = sync.onArrival?.(() => {
    if (stopped || pushSoon !== undefined) return;
    pushSoon = setTimeout(() => {
      pushSoon = undefined;
      // Pulled animals arrive too; only animals waiting to go up need a round.
      void sync.waiting().then(
        (waiting) => (waiting > 0 && !stopped ? roundAfterNow() : undefined),
        () => undefined,
      );
    }, PUSH_DELAY_MILLISECONDS);
  });

  /**
   * Live pulls: one pull at a time waits at the hub for the next animal after the kiosk's
   * checkpoint; when one comes, a round brings it (and whatever came with it) down. The
   * round stays the one writer of pulled animals and the checkpoint. A hub that cannot be
   * reached, or that answers at once without waiting, is asked again after a round's interval.
   */
  const pullLive = async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const checkpoint = (await sync.kiosk())?.checkpoint ?? 0;
        const answer = await client.pull(checkpoint, 1, { wait: waitSeconds, signal: live.signal });
        if (answer.pets.length > 0) {
          await roundAfterNow();
          if (!reachable) await waitUnlessStopped(intervalSeconds * 1000, live.signal);
        } else if (performance.now() - started < 500) {
          await waitUnlessStopped(intervalSeconds * 1000, live.signal);
        }
      } catch {
        await waitUnlessStopped(intervalSeconds * 1000, live.signal);
      }
    }
  };
  let living: Promise<void> | undefined;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void syncNow().then(schedule), intervalSeconds * 1000);
  };
  // One live pull loop for the replicator's life, from the end of its first round.
  void syncNow().then(() => {
    schedule();
    if (waitSeconds > 0 && !stopped) living = pullLive();
  });

  const iso = (time: number | undefined) => (time === undefined ? null : new Date(time).toISOString());
  return {
    async status() {
      const kiosk = await sync.kiosk();
      return {
        hub,
        reachable,
        waiting: await sync.waiting(),
        idsLeft: kiosk === undefined ? 0 : idsLeft(kiosk),
        lastPush: iso(lastPush),
        lastPull: iso(lastPull),
        problem,
      };
    },
    syncNow,
    storage: retryCreatesWhenLeased(storage, { waitForLease, reason: () => refusedKey }),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(pushSoon);
      stopListening?.();
      live.abort();
      wakeLeaseWaiters();
      await round;
      await living;
    },
  };
};
