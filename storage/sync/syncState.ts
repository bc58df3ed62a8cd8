/** @module The sync part of a catalogue's content, and the rules that change it, shared by the memory and JSON-file storages. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { type IdBlock, type KioskState, SyncJoinError } from '../../core/sync/SyncStorage.js';
import type { PetIndex } from '../PetIndex.js';

/** A block of ids a hub leased to one sync key. */
export interface Lease extends IdBlock {
  /** The fingerprint of the sync key it was leased to. */
  scope: string;
}

/** What a catalogue keeps about sync, beside its animals: as a hub, as a kiosk, or both. */
export interface SyncState {
  /** Hub: the blocks leased to sync keys, in the order leased (so ascending). */
  leases: Lease[];
  /** Kiosk: its hub and progress, once it joined one. */
  kiosk?: KioskState | undefined;
}

/** A copy to change, so a failed write can put the old state back. */
export const copySyncState = (state: SyncState | undefined): SyncState => (state === undefined ? { leases: [] } : structuredClone(state));

/** Whether `id` lies in one of `blocks`. */
export const inBlocks = (blocks: readonly IdBlock[], id: number): boolean => blocks.some(({ first, last }) => first <= id && id <= last);

/** The animals of a push that are new here, or the reason the whole push is refused. */
export const checkPush = (leases: readonly Lease[], scope: string, index: PetIndex, pets: readonly Pet[]): Pet[] => {
  const own = leases.filter((lease) => lease.scope === scope);
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

/** How many leased ids the kiosk has left to give. */
export const idsLeft = (kiosk: KioskState): number => {
  if (kiosk.nextId === 0) return 0;
  let left = 0;
  for (const { first, last } of kiosk.blocks) if (last >= kiosk.nextId) left += last - Math.max(first, kiosk.nextId) + 1;
  return left;
};

/** Keeps a block leased to this kiosk; it gives ids from it once the blocks before run out. */
export const addKioskBlock = (kiosk: KioskState, block: IdBlock): void => {
  if (kiosk.blocks.some(({ first, last }) => first <= block.last && block.first <= last)) return;
  kiosk.blocks.push({ first: block.first, last: block.last });
  kiosk.blocks.sort((one, other) => one.first - other.first);
  if (kiosk.nextId === 0) kiosk.nextId = block.first;
};

/**
 * The kiosk state after joining `hub`: a new one for an empty catalogue, the same one for a
 * kiosk of that hub. A catalogue with animals made without sync, or a kiosk of another hub,
 * cannot join: its ids could collide with the hub's.
 */
export const joinedKiosk = (kiosk: KioskState | undefined, hub: string, held: number, where: string): KioskState => {
  if (kiosk !== undefined) {
    if (kiosk.hub === hub) return kiosk;
    throw new SyncJoinError(
      `${where} syncs with the hub ${kiosk.hub}, not ${hub}; a catalogue joins one hub for ever. Start it with --sync-with ${kiosk.hub}, or copy its animals into a hub first (animal-store copy) and start this kiosk on a new data file.`,
    );
  }
  if (held > 0) {
    throw new SyncJoinError(
      `${where} holds ${held} ${held === 1 ? 'animal' : 'animals'} made without sync, whose ids could collide with the hub's, so it cannot join the hub ${hub}. Move them into the hub first (animal-store copy --from THIS-FILE --to HUB-STORAGE while the hub is stopped, or create them through the hub), then start this kiosk on a new, empty data file.`,
    );
  }
  return { hub, blocks: [], nextId: 0, pushedThrough: 0, checkpoint: 0 };
};

/** Up to `limit` animals made at this kiosk after `pushedThrough`, and the id of the last animal the scan passed. */
export const findUnpushed = (kiosk: KioskState, index: PetIndex, limit: number): { pets: Pet[]; through: number } => {
  const all = index.all;
  const pets: Pet[] = [];
  let through = kiosk.pushedThrough;
  for (let position = index.startAfter(kiosk.pushedThrough); position < all.length && pets.length < limit; position++) {
    const pet = all[position]!;
    if (inBlocks(kiosk.blocks, pet.id)) pets.push(pet);
    through = pet.id;
  }
  return { pets, through };
};

/** How many animals made at this kiosk wait to be pushed. */
export const countUnpushed = (kiosk: KioskState, index: PetIndex): number => {
  const all = index.all;
  let count = 0;
  for (let position = index.startAfter(kiosk.pushedThrough); position < all.length; position++) {
    if (inBlocks(kiosk.blocks, all[position]!.id)) count++;
  }
  return count;
};

/** Records that push dealt with everything through `through`, never moving back in arrival order. */
export const markKioskPushed = (kiosk: KioskState, index: PetIndex, through: number): void => {
  if (index.startAfter(through) > index.startAfter(kiosk.pushedThrough)) kiosk.pushedThrough = through;
};
