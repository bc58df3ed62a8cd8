/**
 * @module `animal-store copy --from LIST.json`: brings in a file of animals that is not a data
 * file (an array of animals, or json-server's `{"pets": […]}`), the way `--seed` reads one.
 */
import { readFile } from 'node:fs/promises';
import type { Pet } from '../../core/schemas/Pet.js';
import { openPetContent } from '../../storage/copyPets.js';
import { inChunks } from '../../storage/PetContent.js';
import { toSeedPets } from '../testing/toSeedPets.js';
import type { CopySettings } from './copyCommand.js';

/** What was brought in. */
export interface ImportReport {
  pets: number;
  nextId: number;
  to: string;
}

/**
 * The animals of `from` when it is a JSON file of animals rather than a data file (which has
 * a "format"); `undefined` for a database, a data file, or a file that cannot be read or
 * parsed (`copyPets` then says what is wrong with it, as for any data file).
 */
export const readAnimalList = async (from: string): Promise<Pet[] | undefined> => {
  if (/^postgres(ql)?:\/\//i.test(from)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(from, 'utf8'));
  } catch {
    return undefined;
  }
  const isList = Array.isArray(value) || (typeof value === 'object' && value !== null && !('format' in value) && 'pets' in value);
  return isList ? toSeedPets(value, `The file ${from}`) : undefined;
};

/**
 * Writes `pets` into the copy's target as its whole catalogue (no Idempotency-Keys; the next
 * id after the highest), refused like a copy when the target holds one and `replace` is not set.
 */
export const importPets = async (pets: readonly Pet[], { to, replace, schema }: CopySettings): Promise<ImportReport> => {
  const target = await openPetContent(to, schema);
  try {
    const nextId = (pets.at(-1)?.id ?? 0) + 1;
    await target.write({ nextId, pets: inChunks(pets), idempotencyKeys: [] }, { replace });
    return { pets: pets.length, nextId, to: target.location };
  } finally {
    await target.close();
  }
};
