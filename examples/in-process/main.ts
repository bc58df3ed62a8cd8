/**
 * @module In-process example: a reservations service that keeps its animals in an
 * animal-store catalogue and calls it directly, with no HTTP in between. The calls take and
 * return the same types the HTTP interface uses, validate input with the same schemas, and
 * fail with the same error codes, as a typed `AnimalStoreError` instead of a Response. It
 * seeds a few animals, walks every page of the available ones, reads one by id, and shows
 * how a caller handles a validation error and a miss.
 *
 * Run (from this repository; see examples/README.md):
 * `node --conditions=animal-store-source --import tsx examples/in-process/main.ts`
 */
import { createCatalogue, createMemoryStorage, isAnimalStoreError, type NewPetInput, type Pet } from 'animal-store';

/** The catalogue lives inside this process; swap in `openJsonFileStorage` to keep it on disk. */
const catalogue = createCatalogue({ storage: createMemoryStorage() });

const arrivals: NewPetInput[] = [
  { name: 'Biscuit', categoryId: 1 },
  { name: 'Nimbus', categoryId: 2, status: 'pending' },
  { name: 'Pepper', categoryId: 1 },
  { name: 'Juniper', categoryId: 3, status: 'sold' },
  { name: 'Mochi', categoryId: 2 },
];
for (const arrival of arrivals) {
  const pet: Pet = await catalogue.createPet(arrival);
  console.log(`created #${pet.id} ${pet.name} (${pet.status})`);
}

// pages() follows the cursors for us; a small limit shows that there is more than one page.
let pageNumber = 0;
for await (const page of catalogue.pages({ status: 'available', limit: 2 })) {
  pageNumber++;
  console.log(`available, page ${pageNumber}: ${page.map((pet) => pet.name).join(', ')}`);
}

const nimbus = await catalogue.getPet(2);
console.log(`pet 2 is ${nimbus.name}, ${nimbus.status}`);

/** Tries a call and reports its AnimalStoreError the way a service would to its own callers. */
const attempt = async (what: string, call: () => Promise<unknown>): Promise<void> => {
  try {
    await call();
    console.log(`${what}: succeeded`);
  } catch (error) {
    // isAnimalStoreError also recognises errors from another copy of the package.
    if (!isAnimalStoreError(error)) throw error;
    console.log(`${what}: ${error.code} (${error.status}) ${error.message}`);
    for (const detail of error.details ?? []) console.log(`  - ${detail.path}: ${detail.message}`);
  }
};

// Input from outside arrives untyped; the catalogue validates it, so a cast is safe here.
const untrusted = JSON.parse('{"name":"  ","categoryId":1.5,"stauts":"sold"}') as NewPetInput;
await attempt('create a bad animal', () => catalogue.createPet(untrusted));
await attempt('get animal 99', () => catalogue.getPet(99));
