/**
 * @module In-process example: a reservations service that keeps its animals in an
 * animal-store catalogue and calls it directly, with no HTTP in between. The calls take and
 * return the same types the HTTP interface uses, validate input with the same schemas, and
 * fail with the same error codes, as a typed `AnimalStoreError` instead of a Response. It
 * seeds a few animals, walks every page of the available ones (page by page, animal by
 * animal, and by hand with each page's `next` query), reads one by id, makes a create safe
 * to repeat with an idempotency key, and shows how a caller handles a validation error and
 * a miss.
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

// allPets() yields the animals themselves, across every page.
const sold: string[] = [];
for await (const pet of catalogue.allPets({ status: 'sold' })) sold.push(pet.name);
console.log(`sold: ${sold.join(', ')}`);

// Or by hand: each page carries the whole query of the next one.
const first = await catalogue.listPets({ limit: 3 });
const second = first.next ? await catalogue.listPets(first.next) : undefined;
console.log(`by hand: ${first.pets.length} then ${second?.pets.length ?? 0} animals`);

// An import job that may run twice stores each row once: same key and same animal, same answer.
const once = await catalogue.createPet({ name: 'Clover', categoryId: 4 }, { idempotencyKey: 'import-row-17' });
const again = await catalogue.createPet({ name: 'Clover', categoryId: 4 }, { idempotencyKey: 'import-row-17' });
console.log(`import row 17 is #${once.id} both times: ${once.id === again.id}`);

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

// Input from outside arrives untyped; the catalogue takes it as it is and validates it.
const untrusted: unknown = JSON.parse('{"name":"  ","categoryId":1.5,"stauts":"sold"}');
await attempt('create a bad animal', () => catalogue.createPet(untrusted));
await attempt('get animal 99', () => catalogue.getPet(99));
