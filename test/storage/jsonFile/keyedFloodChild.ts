/**
 * @module A child process for crash tests: opens the data file FILE with the smallest
 * journal (so it is written whole again and again, alongside the creates) and creates keyed
 * animals, 16 at a time, until killed, printing each acknowledged key and its animal's id as
 * a line `key id`. With `after-rename`, it kills itself with SIGKILL the moment a whole
 * write's new document is renamed in place once it has printed 200 keys: before the journal
 * is cut to the lines appended meanwhile.
 *
 *     node --import tsx test/storage/jsonFile/keyedFloodChild.ts FILE PREFIX [after-rename]
 */
import fs from 'node:fs';
import path from 'node:path';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';

const [file, prefix, crash] = process.argv.slice(2) as [string, string, string | undefined];
let printed = 0;
if (crash === 'after-rename') {
  const rename = fs.promises.rename;
  fs.promises.rename = async (from, to) => {
    await rename(from, to);
    if (path.resolve(String(to)) === path.resolve(file) && printed >= 200) process.kill(process.pid, 'SIGKILL');
  };
}
const storage = await openJsonFileStorage({ file, journalMinBytes: 0 });
const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const client = async (number: number) => {
  for (let count = 0; ; count++) {
    const key = `${prefix}-${number}-${count}`;
    const createdAt = Date.now();
    const { pet } = await storage.createIdempotent(rex, {
      scope: 'a1b2c3',
      key,
      fingerprint: 'digest-of-payload',
      createdAt,
      expiresAt: createdAt + 86_400_000,
    });
    process.stdout.write(`${key} ${pet.id}\n`);
    printed++;
  }
};
await Promise.all(Array.from({ length: 16 }, (_, number) => client(number)));
