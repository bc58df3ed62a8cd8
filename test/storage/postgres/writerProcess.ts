/**
 * @module A writer instance for the id-order test, run as its own process: opens the storage
 * on the schema it is given and creates animals from `clients` concurrent loops until it has
 * created `count`, then prints the ids it was given as one JSON line.
 *
 * `node --import tsx test/storage/postgres/writerProcess.ts URL SCHEMA COUNT CLIENTS NAME`
 */
import { openPostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';

const [url, schema, count, clients, name] = process.argv.slice(2);
const storage = await openPostgresStorage({ connectionString: url!, schema: schema!, poolSize: 4 });
const ids: number[] = [];
let started = 0;
const loop = async () => {
  while (started < Number(count)) {
    started++;
    ids.push((await storage.create({ name: `${name} ${started}`, categoryId: 1, status: 'available' })).id);
  }
};
await Promise.all(Array.from({ length: Number(clients) }, loop));
await storage.close();
process.stdout.write(`${JSON.stringify(ids)}\n`);
