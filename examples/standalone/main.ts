/**
 * @module Standalone example: runs the catalogue as its own HTTP server, keeping the
 * animals in a JSON file, and talks to it over plain HTTP as any client would (bearer key,
 * JSON bodies, `Link rel="next"` for paging). It then stops the server, starts it again on
 * the same file, and shows that the animals and their ids survived the restart.
 *
 * Run (from this repository; see examples/README.md):
 * `node --conditions=animal-store-source --import tsx examples/standalone/main.ts [data-folder]`
 * (a fresh temporary folder, removed afterwards, when no folder is given).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJsonFileStorage, serve } from 'animal-store/node';

const apiKey = 'standalone-example-key';
const folder = process.argv[2] ?? (await mkdtemp(join(tmpdir(), 'animal-store-standalone-')));
const file = join(folder, 'animals.json');

/** Starts a server on the data file; port 0 picks any free port. */
const start = async () => serve({ storage: await openJsonFileStorage({ file }), keys: [apiKey], port: 0 });

/** Calls the API with the key, and fails loudly on anything but the expected status. */
const call = async (url: string, expected: number, init: RequestInit = {}) => {
  const response = await fetch(url, {
    ...init,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
  });
  if (response.status !== expected) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  return response;
};

let server = await start();
console.log(`listening on ${server.url}, animals kept in ${file}`);

for (const newPet of [
  { name: 'Biscuit', categoryId: 1 },
  { name: 'Nimbus', categoryId: 2, status: 'pending' },
  { name: 'Pepper', categoryId: 1 },
]) {
  const response = await call(`${server.url}/pets`, 201, { method: 'POST', body: JSON.stringify(newPet) });
  const pet = await response.json();
  console.log(`created #${pet.id} ${pet.name} (${pet.status}) at ${response.headers.get('location')}`);
}

// Walk the list two at a time, following the Link header (relative to the server) until it stops.
let next: string | undefined = `${server.url}/pets?limit=2`;
while (next) {
  const response = await call(next, 200);
  const pets: { id: number; name: string }[] = await response.json();
  console.log(`page: ${pets.map((pet) => `#${pet.id} ${pet.name}`).join(', ')}`);
  const link = response.headers.get('link')?.match(/<([^>]+)>;\s*rel="next"/)?.[1];
  next = link ? new URL(link, server.url).href : undefined;
}

await server.close();
console.log('stopped; starting again on the same file');

server = await start();
const again = await call(`${server.url}/pets`, 201, { method: 'POST', body: '{"name":"Mochi","categoryId":3}' });
console.log(`after the restart, created #${(await again.json()).id} Mochi; ids carry on`);
const all = await (await call(`${server.url}/pets`, 200)).json();
console.log(`the file holds ${all.length} animals`);
await server.close();

if (process.argv[2] === undefined) await rm(folder, { recursive: true });
