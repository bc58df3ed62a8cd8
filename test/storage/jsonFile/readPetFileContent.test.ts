import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { DataFileError } from '../../../storage/durableFile/index.js';
import type { PetFileContent } from '../../../storage/jsonFile/PetFileContent.js';
import type { PetFileData } from '../../../storage/jsonFile/PetFileData.js';
import { PetFileSerializer } from '../../../storage/jsonFile/PetFileSerializer.js';
import { parsePetFile } from '../../../storage/jsonFile/parsePetFile.js';
import { readKeysInWorker } from '../../../storage/jsonFile/readKeysInWorker.js';
import { piecesOf, readPetFileContent } from '../../../storage/jsonFile/readPetFileContent.js';
import { keyToFile } from './keyToFile.js';

const SCOPE = 'c0ffee'.repeat(11).slice(0, 64);
const NOW = Date.parse('2026-11-28T10:00:00Z');

/** A data file's data: `keys` keys (over a megabyte of them from about 4,000), as the service stores them. */
const dataWith = (pets: number, keys: number, sync?: PetFileData['sync']): PetFileData => {
  const data: PetFileData = {
    format: 2,
    nextId: pets + 1,
    pets: Array.from(
      { length: pets },
      (_, at): Pet => ({ id: at + 1, name: `Animal ${at + 1}`, categoryId: 1 + (at % 7), status: 'available' }),
    ),
    idempotencyKeys: Array.from(
      { length: keys },
      (_, at): StoredIdempotencyKey => ({
        scope: at % 3 === 0 ? SCOPE : 'ab'.repeat(32),
        key: at % 5 === 0 ? `order ${at}` : `5f1c2a9e-0b7d-4c1e-9a2b-${at.toString(16).padStart(12, '0')}`,
        fingerprint: createHash('sha256').update(`payload ${at}`).digest().subarray(0, 8).toString('base64url'),
        petId: (at % pets) + 1,
        createdAt: NOW + at,
        expiresAt: NOW + at + 86_400_000,
      }),
    ),
  };
  if (sync) data.sync = sync;
  return data;
};

const textOf = (data: PetFileData) => Buffer.concat(new PetFileSerializer().serialize(data)).toString('utf8');

/** What a content holds, as plain data, to compare with `parsePetFile`'s. */
const plain = (content: PetFileContent) => ({
  nextId: content.nextId,
  pets: content.pets,
  idempotencyKeys: [...content.idempotencyKeys.values()],
  sync: content.sync,
});

/** The error `run` throws. */
const thrown = async (run: () => unknown) => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
};

describe('Reading a data file of many keys, the keys in a worker thread', () => {
  it('Should build the queue of a list of keys in a worker thread, found by scope and key as in this one', async () => {
    const { idempotencyKeys } = dataWith(10, 5_000);
    const queue = await readKeysInWorker(JSON.stringify(idempotencyKeys.map(keyToFile)));
    expect(queue?.size).toBe(5_000);
    expect([...queue!.values()]).toEqual(idempotencyKeys);
    const wanted = idempotencyKeys[4_321]!;
    expect(queue!.find({ ...wanted, fingerprint: '', createdAt: NOW + 5_000 })).toEqual(wanted);
    expect(queue!.find({ ...wanted, scope: 'ff'.repeat(32), fingerprint: '', createdAt: NOW + 5_000 })).toBeUndefined();
    // Not a list of valid keys: nothing, and the caller reads the file itself.
    expect(await readKeysInWorker(JSON.stringify([keyToFile({ ...wanted, petId: 0 })]))).toBeUndefined();
    expect(await readKeysInWorker('[{"scope":')).toBeUndefined();
  });

  it('Should read a file the server wrote, with or without its sync part, as parsePetFile does', async () => {
    for (const sync of [undefined, { leases: [{ scope: SCOPE, first: 1_000_001, last: 1_001_000 }] }] as const) {
      const text = textOf(dataWith(3_000, 6_000, sync as PetFileData['sync']));
      // Cut into its pieces, so its keys go to the worker.
      const pieces = piecesOf(text);
      expect(pieces?.nextId).toBe(3_001);
      expect(JSON.parse(pieces!.pets)).toHaveLength(3_000);
      expect(JSON.parse(pieces!.keys)).toHaveLength(6_000);
      expect(pieces!.rest).toBe(sync ? `,\n"sync":${JSON.stringify(sync)}\n}\n` : '}\n');
      const content = await readPetFileContent(text, 'animals.json');
      expect(plain(content)).toEqual(plain({ ...parsePetFile(text, 'animals.json'), idempotencyKeys: content.idempotencyKeys }));
      expect([...content.idempotencyKeys.values()]).toEqual(parsePetFile(text, 'animals.json').idempotencyKeys);
    }
  });

  it('Should name the first problem of a damaged file of many keys as parsePetFile does', async () => {
    const data = dataWith(3_000, 6_000);
    const badKey = textOf(data).replace(
      `"petId":${(4_000 % 3_000) + 1},"createdAt":"${new Date(NOW + 4_000).toISOString()}"`,
      '"petId":0,"createdAt":"x"',
    );
    const badPet = textOf(data).replace('"name":"Animal 2000"', '"name":""');
    const repeated = textOf(data).replace('{"id":7,', '{"id":6,');
    const strayField = textOf(data).replace(/\n\]\}\n$/, '\n],"extra":1}\n');
    const noEnd = textOf(data).replace(/\n\]\}\n$/, '\n]');
    for (const text of [badKey, badPet, repeated, strayField, noEnd]) {
      expect(text).not.toBe(textOf(data));
      const expected = (await thrown(() => parsePetFile(text, 'animals.json'))) as DataFileError;
      expect(expected).toBeInstanceOf(DataFileError);
      const error = await thrown(() => readPetFileContent(text, 'animals.json'));
      expect(error).toBeInstanceOf(DataFileError);
      expect((error as Error).message).toBe(expected.message);
    }
  });

  it('Should read a file laid out otherwise (edited by hand), or of few keys, the usual way, to the same content', async () => {
    expect(piecesOf(textOf(dataWith(3_000, 2_000)))).toBeUndefined();
    const data = dataWith(2_000, 5_000);
    // Keys before the animals, and the whole on one line: no worker, the same content.
    const keys = data.idempotencyKeys.map(keyToFile);
    const reordered = JSON.stringify({ format: 2, nextId: data.nextId, idempotencyKeys: keys, pets: data.pets });
    const oneLine = JSON.stringify({ ...data, idempotencyKeys: keys });
    for (const text of [reordered, oneLine]) {
      expect(piecesOf(text)).toBeUndefined();
      const content = await readPetFileContent(text, 'animals.json');
      expect(content.pets).toEqual(data.pets);
      expect([...content.idempotencyKeys.values()]).toEqual(data.idempotencyKeys);
    }
  });
});
