/**
 * @module PostgreSQL example: two servers on one database, as two instances behind a load
 * balancer would run. Each opens its own storage on the same database (the schema is made
 * on first open), they share the API key and the cursor secret, and a client may speak to
 * either: an animal created through one is listed by the other, and a page's `next` link
 * from one is followed on the other.
 *
 * Run (from this repository; see examples/README.md), with a database you may write to:
 * `DATABASE_URL=postgres://user:password@localhost:5432/animals node --conditions=animal-store-source --import tsx examples/postgres/main.ts`
 * (`pg` must be installed: `npm install pg`).
 */
import { type AnimalStoreServer, serve } from 'animal-store/node';
import { openPostgresStorage, type PostgresStorage } from 'animal-store/postgres';

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  console.error('Give a database: DATABASE_URL=postgres://user:password@host:5432/database');
  process.exit(2);
}
// Every instance needs the same keys and the same cursor secret; in production, from the environment.
const keys = ['postgres-example-key'];
const cursorSecret = 'postgres-example-cursor-secret';

/** One instance: its own storage (and pool) on the shared database, and its own server. */
const startInstance = async (): Promise<{ storage: PostgresStorage; server: AnimalStoreServer }> => {
  const storage = await openPostgresStorage({ connectionString });
  return { storage, server: await serve({ storage, keys, cursorSecret, port: 0 }) };
};

/** Calls an instance with the key, and fails loudly on anything but the expected status. */
const call = async (url: string, expected: number, init: RequestInit = {}) => {
  const response = await fetch(url, { ...init, headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' } });
  if (response.status !== expected) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return response;
};

const [one, two] = await Promise.all([startInstance(), startInstance()]);
console.log(`instance one on ${one.server.url}, instance two on ${two.server.url}, one database`);

for (const [index, newPet] of [
  { name: 'Biscuit', categoryId: 1 },
  { name: 'Nimbus', categoryId: 2, status: 'pending' },
  { name: 'Pepper', categoryId: 1 },
].entries()) {
  const instance = index % 2 === 0 ? one : two;
  const pet = await (await call(`${instance.server.url}/pets`, 201, { method: 'POST', body: JSON.stringify(newPet) })).json();
  console.log(`created #${pet.id} ${pet.name} through instance ${instance === one ? 'one' : 'two'}`);
}

// A page from instance two, its next page from instance one: cursors travel between instances.
const first = await call(`${two.server.url}/pets?limit=2`, 200);
console.log(
  `instance two, page 1: ${(await first.json()).map((pet: { id: number; name: string }) => `#${pet.id} ${pet.name}`).join(', ')}`,
);
const next = first.headers.get('link')?.match(/<([^>]+)>;\s*rel="next"/)?.[1];
const second = await call(new URL(next!, one.server.url).href, 200);
console.log(
  `instance one, page 2: ${(await second.json()).map((pet: { id: number; name: string }) => `#${pet.id} ${pet.name}`).join(', ')}`,
);

console.log(`health: ${JSON.stringify(await one.storage.checkHealth())}`);
// close() stops the server, then the storage, which ends the pool it made.
await Promise.all([one.server.close(), two.server.close()]);
console.log('stopped both instances; the animals stay in the database');
