/** @module The sync part of a catalogue's content, and the rules that change it, shared by the memory, JSON-file and IndexedDB storages (PostgreSQL's in part). */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { type IdBlock, type KioskState, SyncJoinError } from '../../core/sync/SyncStorage.js';
import type { PetIndex } from '../PetIndex.js';
import type { Lease } from './Lease.js';
import type { LeaseUse } from './LeaseUse.js';

/** What a catalogue keeps about sync, beside its animals: as a hub, as a kiosk, or both. */
export interface SyncState {
  /** Hub: the blocks leased to sync keys, in the order leased (so ascending). */
  leases: Lease[];
  /** Kiosk: its hub and progress, once it joined one. */
  kiosk?: KioskState | undefined;
}

/**
 * A copy to change, so a failed write can put the old state back. Leases are only ever
 * added, never changed, so the copy shares them: a hub's list grows by one every 1,000 ids
 * leased, and a deep copy of it made every push cost more the older the hub.
 */
export const copySyncState = (state: SyncState | undefined): SyncState =>
  state === undefined ? { leases: [] } : { leases: [...state.leases], kiosk: state.kiosk && structuredClone(state.kiosk) };

/** The block leased last: the one with the highest ids (blocks are kept ascending, but a file edited by hand may not be). */
const lastLeased = (blocks: readonly IdBlock[]): IdBlock | undefined =>
  blocks.reduce<IdBlock | undefined>((highest, block) => (highest === undefined || block.last > highest.last ? block : highest), undefined);

/** The highest id `blocks` hold (0 for none): a loop, not a spread, since a hub's leases pass the 120,000 or so arguments a call takes. */
export const highestLeasedId = (blocks: readonly IdBlock[]): number => lastLeased(blocks)?.last ?? 0;

/** Whether `id` lies in one of `blocks`. */
export const inBlocks = (blocks: readonly IdBlock[], id: number): boolean => blocks.some(({ first, last }) => first <= id && id <= last);

/**
 * The refusal a kiosk answers to a lease or a push: it has no ids of its own to lease (its
 * blocks are its hub's), and an animal pushed to it could take an id its hub gave to someone
 * else. A kiosk of a kiosk is not supported; every kiosk syncs with the hub itself.
 */
export const kioskRefusal = (what: 'lease' | 'push'): AnimalStoreError =>
  new AnimalStoreError(
    'sync_conflict',
    `This server is a kiosk that syncs with a hub, so it ${what === 'lease' ? 'leases no ids' : 'takes no pushes'}: only its hub does (a kiosk of a kiosk is not supported). Sync with the hub itself. Nothing was stored.`,
  );

/** Refuses a lease or a push at a kiosk (see `kioskRefusal`). */
export const refuseAtKiosk = (sync: SyncState | undefined, what: 'lease' | 'push'): void => {
  if (sync?.kiosk !== undefined) throw kioskRefusal(what);
};

/**
 * Where a hub's next lease starts: above every id it holds (`highestId`), every id its own
 * creates may have given (`nextId`) and every id it leased before, so a lease never hands
 * out an id that is taken, whatever a file edit or an older version left behind.
 */
export const leaseStart = (nextId: number, highestId: number, leases: readonly IdBlock[]): number =>
  Math.max(nextId, highestId + 1, highestLeasedId(leases) + 1);

/**
 * A hub's lease of the next `size` ids to `scope`, recorded in `sync.leases`; refused at a
 * kiosk, and for a key that holds too many unused blocks (`use`). It starts above every id
 * held in `index`, given (`nextId`) or leased. The caller moves its `nextId` past the block.
 */
export const addLease = (sync: SyncState, use: LeaseUse, index: PetIndex, nextId: number, scope: string, size: number): IdBlock => {
  refuseAtKiosk(sync, 'lease');
  use.refuseBeyondBound(sync.leases, index, scope);
  const first = leaseStart(nextId, index.lastId, sync.leases);
  const last = first + size - 1;
  sync.leases.push({ scope, first, last });
  return { first, last };
};

/**
 * The animals of a push that are new here (each once, fields only), or the reason the whole
 * push is refused: at a kiosk, for an id not leased to `scope` in `sync.leases`, for an
 * animal held already with other fields, for an id held by another animal (`index`).
 */
export const checkPush = (sync: SyncState, scope: string, index: PetIndex, pets: readonly Pet[]): Pet[] => {
  refuseAtKiosk(sync, 'push');
  const own = sync.leases.filter((lease) => lease.scope === scope);
  const fresh: Pet[] = [];
  const seen = new Set<number>();
  for (const pet of pets) {
    if (!inBlocks(own, pet.id)) {
      throw new AnimalStoreError(
        'forbidden',
        `This sync key may push only animals whose ids the hub leased to it, and ${pet.id} is not one of them. Nothing was stored.`,
      );
    }
    const held = index.get(pet.id);
    if (held === undefined) {
      if (!seen.has(pet.id)) fresh.push({ id: pet.id, name: pet.name, categoryId: pet.categoryId, status: pet.status });
      seen.add(pet.id);
    } else if (held.name !== pet.name || held.categoryId !== pet.categoryId || held.status !== pet.status) {
      throw new AnimalStoreError(
        'sync_conflict',
        `The animal ${pet.id} is stored here already with other fields; a kiosk never changes an animal. Nothing was stored.`,
      );
    }
  }
  index.refuseTaken(fresh, 'sync');
  return fresh;
};

/** The message of a kiosk with no leased id left. */
export const NO_IDS =
  'This kiosk has no ids to give to new animals yet: it has not reached its hub since it started syncing, or used every id the hub leased to it. Nothing was stored; try again once it reaches the hub.';

/** Takes the kiosk's next id and moves `nextId` on (into the next block, or to 0); throws a 503 when none is left. */
export const takeKioskId = (kiosk: KioskState): number => {
  const id = kiosk.nextId;
  if (id === 0) throw new AnimalStoreError('storage_unavailable', NO_IDS);
  const block = kiosk.blocks.find(({ first, last }) => first <= id && id <= last);
  if (block !== undefined && id < block.last) kiosk.nextId = id + 1;
  else kiosk.nextId = kiosk.blocks.find(({ first }) => first > id)?.first ?? 0;
  return id;
};

/**
 * Takes the id a local create gives its animal: a kiosk's next leased id (moving `kiosk` on),
 * otherwise above every id held in `index` and given (`nextId`). Refuses (503) an id held
 * already, which only a hand-changed state leads to.
 */
export const takeId = (kiosk: KioskState | undefined, nextId: number, index: PetIndex): number => {
  const id = kiosk ? takeKioskId(kiosk) : Math.max(nextId, index.lastId + 1);
  index.refuseTaken([{ id }], 'create');
  return id;
};

/** How many ids a leased block holds. */
export const idsIn = ({ first, last }: IdBlock): number => last - first + 1;

/** How many leased ids the kiosk has left to give. */
export const idsLeft = (kiosk: KioskState): number => {
  if (kiosk.nextId === 0) return 0;
  let left = 0;
  for (const { first, last } of kiosk.blocks) if (last >= kiosk.nextId) left += last - Math.max(first, kiosk.nextId) + 1;
  return left;
};

/**
 * Whether the block is one the kiosk keeps already (a repeat, which changes nothing); refuses
 * one that starts at or below the last id of a block it keeps (a hub leases ascending, so
 * such a block overlaps, or lies below, ids it leased to this kiosk before) or holds an id
 * this kiosk holds an animal with (`heldIn(first, last)` says whether it holds any id in that
 * range): a hub whose storage was replaced or restored from a backup leases ids again, and
 * taking them could give one id to two animals. Comparing with the last block, not with
 * every block, keeps the rule whole after spent blocks are dropped (`dropSpentBlocks`).
 */
export const checkKioskBlock = (kiosk: KioskState, block: IdBlock, heldIn: (first: number, last: number) => boolean): boolean => {
  if (kiosk.blocks.some(({ first, last }) => first === block.first && last === block.last)) return true;
  const leasedThrough = highestLeasedId(kiosk.blocks);
  const problem =
    block.first <= leasedThrough
      ? `the hub leased this kiosk ids up to ${leasedThrough} before, and a hub leases each block above the last`
      : heldIn(block.first, block.last)
        ? 'this kiosk holds some of them already'
        : undefined;
  if (problem !== undefined) {
    throw new AnimalStoreError(
      'sync_conflict',
      `The hub leased the ids ${block.first} to ${block.last}, but ${problem}: the hub's storage may have been replaced or restored from a backup. The block was not kept, and this kiosk gives no id from it.`,
    );
  }
  return false;
};

/** Whether `index` holds an animal with an id from `first` to `last`, in time bounded by the smaller of the two. */
const heldInRange = (index: PetIndex, first: number, last: number): boolean => {
  if (last - first + 1 <= index.size) {
    for (let id = first; id <= last; id++) if (index.has(id)) return true;
    return false;
  }
  for (let position = 0; position < index.size; position++) {
    const id = index.idAt(position);
    if (first <= id && id <= last) return true;
  }
  return false;
};

/**
 * Moves the kiosk's next id past the pulled animals that were made here but that it does
 * not hold (a kiosk file restored from a backup older than its last pushes), so it never
 * gives their ids again.
 */
export const skipPulledOwnIds = (kiosk: KioskState, pulled: readonly { id: number }[]): void => {
  for (const { id } of pulled) {
    if (kiosk.nextId === 0 || id < kiosk.nextId || !inBlocks(kiosk.blocks, id)) continue;
    kiosk.nextId = id;
    takeKioskId(kiosk);
  }
};

/**
 * The pulled animals new here (each id once, fields only), refused whole if one would take an
 * id held by another animal; then `kiosk` (if this is one) moves past its own ids among them
 * and records `checkpoint`. A storage that can refuse the animals afterwards (a full memory)
 * passes a copy of its kiosk and keeps it once they are stored.
 */
export const takePulled = (kiosk: KioskState | undefined, index: PetIndex, pulled: readonly Pet[], checkpoint: number): Pet[] => {
  const fresh = new Map<number, Pet>();
  for (const { id, name, categoryId, status } of pulled) {
    if (!index.has(id) && !fresh.has(id)) fresh.set(id, { id, name, categoryId, status });
  }
  const pets = [...fresh.values()];
  index.refuseTaken(pets, 'sync');
  if (kiosk) {
    skipPulledOwnIds(kiosk, pets);
    kiosk.checkpoint = checkpoint;
  }
  return pets;
};

/**
 * Drops the kiosk's spent blocks: those whose every id was given (below `nextId`, or all
 * given while `nextId` is 0) and from which no animal waits to be pushed. The last block
 * stays, so `checkKioskBlock` still knows how far the hub leased. Says whether any went.
 * Without this the blocks grow by one every 1,000 creates for the kiosk's whole life, and a
 * data file writes them with each create.
 */
export const dropSpentBlocks = (kiosk: KioskState, index: PetIndex): boolean => {
  const { blocks } = kiosk;
  const givenBelow = kiosk.nextId === 0 ? Number.POSITIVE_INFINITY : kiosk.nextId;
  const last = lastLeased(blocks);
  const spent = blocks.filter((block) => block !== last && block.last < givenBelow);
  if (spent.length === 0) return false;
  // Not only the first animal after `pushedThrough`: a file edited by hand may hold its animals in any order.
  const waiting = new Set<IdBlock>();
  for (let position = index.startAfter(kiosk.pushedThrough); position < index.size && waiting.size < spent.length; position++) {
    const id = index.idAt(position);
    const block = spent.find(({ first, last }) => first <= id && id <= last);
    if (block !== undefined) waiting.add(block);
  }
  if (waiting.size === spent.length) return false;
  kiosk.blocks = blocks.filter((block) => !spent.includes(block) || waiting.has(block));
  return true;
};

/**
 * Keeps a block leased to this kiosk, which gives ids from it once the blocks before run out,
 * and drops the blocks that spent (`dropSpentBlocks`); says whether the kiosk changed (a
 * repeat changes nothing). Refuses a block from at or below the last one, or holding an id
 * held in `index` (see `checkKioskBlock`), changing nothing.
 */
export const addKioskBlock = (kiosk: KioskState, block: IdBlock, index: PetIndex): boolean => {
  if (checkKioskBlock(kiosk, block, (first, last) => heldInRange(index, first, last))) return false;
  kiosk.blocks.push({ first: block.first, last: block.last });
  kiosk.blocks.sort((one, other) => one.first - other.first);
  if (kiosk.nextId === 0) kiosk.nextId = block.first;
  // The block that was last may be spent, and no longer needs to stay.
  dropSpentBlocks(kiosk, index);
  return true;
};

/**
 * Whether two URLs name the same hub: compared as WHATWG URLs, so the host's case, a default
 * port (`:80` for http, `:443` for https) and trailing slashes make no difference, while the
 * scheme, the host, another port and the path's case do.
 */
export const sameHub = (one: string, other: string): boolean => {
  const normal = (text: string) => {
    try {
      const url = new URL(text);
      url.pathname = url.pathname.replace(/\/+$/, '');
      return url.href.replace(/\/+$/, '');
    } catch {
      return text;
    }
  };
  return normal(one) === normal(other);
};

/**
 * The kiosk state after joining `hub`: a new one for an empty catalogue, the same one for a
 * kiosk of that hub (however its URL is written), and a new one too for a kiosk that never
 * leased a block nor holds an animal (a mistyped URL is corrected by starting again with the
 * right one). A catalogue that cannot join says why and what to do instead: one with
 * animals made without sync, or that leased ids to kiosks (a hub), or a kiosk that holds
 * ids or animals of another hub; their ids could collide with the hub's.
 */
export const joinedKiosk = (kiosk: KioskState | undefined, hub: string, held: number, where: string, leases = 0): KioskState => {
  if (kiosk === undefined && leases > 0) {
    throw new SyncJoinError(
      `${where} is a hub: it leased ids to ${leases === 1 ? 'a sync key' : `${leases} sync keys`}, whose kiosks may hold them, so it cannot become a kiosk of the hub ${hub}. Start a kiosk on a new, empty data file.`,
    );
  }
  if (kiosk !== undefined) {
    if (sameHub(kiosk.hub, hub)) return kiosk;
    if (kiosk.blocks.length > 0 || held > 0) {
      const holds =
        held > 0
          ? `holds ${held} ${held === 1 ? 'animal' : 'animals'} from it`
          : `holds ${kiosk.blocks.length === 1 ? 'a block' : `${kiosk.blocks.length} blocks`} of ids that hub leased to it`;
      const wayOut =
        held > 0
          ? `to sync with ${hub} instead, copy its animals into that hub first if they belong there (animal-store copy --from THIS-FILE --to HUB-STORAGE while the hub is stopped) and start this kiosk on a new, empty data file`
          : `to sync with ${hub} instead, start this kiosk on a new, empty data file`;
      throw new SyncJoinError(
        `${where} syncs with the hub ${kiosk.hub}, not ${hub}, and ${holds}, so it cannot change hubs. Start it with --sync-with ${kiosk.hub}; or, ${wayOut}.`,
      );
    }
    // Never leased nor pulled anything: the record of a hub it never used is replaced.
  } else if (held > 0) {
    throw new SyncJoinError(
      `${where} holds ${held} ${held === 1 ? 'animal' : 'animals'} made without sync, whose ids could collide with the hub's, so it cannot join the hub ${hub}. Move them into the hub first (animal-store copy --from THIS-FILE --to HUB-STORAGE while the hub is stopped, or create them through the hub), then start this kiosk on a new, empty data file.`,
    );
  }
  return { hub, blocks: [], nextId: 0, pushedThrough: 0, checkpoint: 0 };
};

/** Up to `limit` animals made at this kiosk after `pushedThrough`, and the id of the last animal the scan passed (none and 0 if not a kiosk). */
export const findUnpushed = (kiosk: KioskState | undefined, index: PetIndex, limit: number): { pets: Pet[]; through: number } => {
  if (kiosk === undefined) return { pets: [], through: 0 };
  const pets: Pet[] = [];
  let through = kiosk.pushedThrough;
  for (let position = index.startAfter(kiosk.pushedThrough); position < index.size && pets.length < limit; position++) {
    const id = index.idAt(position);
    if (inBlocks(kiosk.blocks, id)) pets.push(index.at(position));
    through = id;
  }
  return { pets, through };
};

/** How many animals made at this kiosk wait to be pushed (0 if not a kiosk). */
export const countUnpushed = (kiosk: KioskState | undefined, index: PetIndex): number => {
  if (kiosk === undefined) return 0;
  let count = 0;
  for (let position = index.startAfter(kiosk.pushedThrough); position < index.size; position++) {
    if (inBlocks(kiosk.blocks, index.idAt(position))) count++;
  }
  return count;
};

/**
 * Records that push dealt with everything through `through`, never moving back in arrival
 * order, and drops the blocks that spent (`dropSpentBlocks`); says whether the kiosk changed.
 */
export const markKioskPushed = (kiosk: KioskState | undefined, index: PetIndex, through: number): boolean => {
  if (kiosk === undefined || index.startAfter(through) <= index.startAfter(kiosk.pushedThrough)) return false;
  kiosk.pushedThrough = through;
  dropSpentBlocks(kiosk, index);
  return true;
};
