/** @module A JSON data file seen whole, for `copyPets`: read as it is, written in one durable replace. */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Pet } from '../../core/schemas/Pet.js';
import {
  type Changes,
  createFolderDurably,
  DataFileError,
  DurableTextFile,
  nodeFileSystem,
  readJournal,
  realPathOf,
} from '../durableFile/index.js';
import { inChunks, type PetContentStore, TargetNotEmptyError } from '../PetContent.js';
import { checkPetFile } from './format/checkPetFile.js';
import { replayPetChanges } from './format/PetChange.js';
import { toPetFileContent } from './format/PetFileContent.js';
import { PET_FILE_FORMAT, type PetFileData } from './format/PetFileData.js';
import { parsePetFile } from './read/parsePetFile.js';
import { PetFileSerializer } from './write/PetFileSerializer.js';

/** The file's data with its journal's changes, as a server opening it would see it. */
const withChanges = (data: PetFileData, changes: Changes, name: string): PetFileData => {
  if (changes.length === 0) return data;
  const content = toPetFileContent(data);
  replayPetChanges(content, changes, name);
  const keys = content.idempotencyKeys;
  const idempotencyKeys = Array.from({ length: keys.size }, (_, index) => keys.at(keys.first + index));
  return { format: PET_FILE_FORMAT, nextId: content.nextId, pets: content.pets.slice(), idempotencyKeys };
};

/**
 * The data file `given`, to copy from or into. Reading needs no lock: a running server's
 * file reads as one consistent version with its journal's changes (a line being appended
 * is not whole yet, and left out, as a crash would leave it; a whole write between reading
 * the file and its journal may make the read fail, saying so; the copy can be run again). Writing takes
 * the file as a server does (its kernel lock: a server using the file makes it fail with a
 * DataFileLockedError; a missing file is created 0600), checks the result as a server
 * opening it would, and replaces the file durably (temp file, fsync, rename, fsync of the
 * folder), keeping its owner and permissions.
 */
export const openPetFileContent = (given: string): PetContentStore => {
  const file = path.resolve(given);
  const readData = async (): Promise<PetFileData | undefined> => {
    let content: string;
    let changes: Changes;
    try {
      content = await fs.readFile(file, 'utf8');
      changes = await readJournal(nodeFileSystem, await realPathOf(nodeFileSystem, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new DataFileError(file, `The data file ${file} cannot be read: ${(error as Error).message}.`, { cause: error });
    }
    return withChanges(parsePetFile(content, file), changes, file);
  };

  return {
    location: file,
    async read(use) {
      const data = await readData();
      if (data === undefined) throw new DataFileError(file, `The data file ${file} does not exist.`);
      return use({ nextId: data.nextId, pets: inChunks(data.pets), idempotencyKeys: data.idempotencyKeys });
    },
    async write(content, { replace }) {
      await createFolderDurably(file, nodeFileSystem);
      const serializer = new PetFileSerializer();
      const durable = await DurableTextFile.take(await realPathOf(nodeFileSystem, file), {
        name: file,
        fs: nodeFileSystem,
        initial: () => serializer.serialize({ format: PET_FILE_FORMAT, nextId: 1, pets: [], idempotencyKeys: [] }),
      });
      try {
        const text = await durable.read();
        const changes = await durable.journal();
        let held: PetFileData;
        try {
          held = withChanges(parsePetFile(text, file), changes, file);
        } finally {
          changes.free();
        }
        if (!replace && (held.pets.length > 0 || held.nextId > 1 || held.idempotencyKeys.length > 0)) {
          throw new TargetNotEmptyError(file, { pets: held.pets.length, nextId: held.nextId });
        }
        const pets: Pet[] = [];
        for await (const chunk of content.pets) pets.push(...chunk);
        const data: PetFileData = { format: PET_FILE_FORMAT, nextId: content.nextId, pets, idempotencyKeys: [...content.idempotencyKeys] };
        const bytes = serializer.serialize(data);
        // Checked as a server opening it would check it, so a copy never writes a file a server refuses.
        const checked = checkPetFile(JSON.parse(Buffer.concat(bytes).toString('utf8')));
        if ('problem' in checked) {
          throw new DataFileError(
            file,
            `The catalogue cannot be written to the data file ${file}: ${checked.problem.path} ${checked.problem.message}. Nothing was written.`,
          );
        }
        await durable.write(bytes);
      } finally {
        await durable.release();
      }
    },
    async close() {},
  };
};
