/** @module Reads seed data from a JSON file (Node, Bun, Deno). */
import { readFile } from 'node:fs/promises';
import type { Pet } from '../../core/schemas/Pet.js';
import { toSeedPets } from './toSeedPets.js';

/**
 * Reads and validates a JSON seed file: a data file as the JSON-file storage writes it
 * (`{"format":2,"nextId":N,"pets":[…],"idempotencyKeys":[]}`), an array of animals or new
 * animals, or json-server's `{"pets": […]}`.
 * Fails with a message naming the file and its first problem.
 *
 * @param file The path of the file.
 * @returns The animals, in id order, ready for `createTestCatalogue({ seed })`.
 */
export const loadSeedFile = async (file: string | URL): Promise<Pet[]> => {
  const name = String(file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new Error(`Cannot read the seed file ${name}: ${(cause as Error).message}`, { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new Error(`The seed file ${name} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return toSeedPets(value, `The seed file ${name}`);
};
