/** @module Opens the data file as lowdb means it: a `Low` owning the content, over an adapter for the file's format. */
import { Low } from 'lowdb';
import { DataFileError, DurableDataFile, DurableTextFile, type FileSystem, systemErrorReason } from '../durableFile/index.js';
import type { PetChange } from './format/PetChange.js';
import { emptyPetFileContent, type PetFileContent } from './format/PetFileContent.js';
import { readPetFileContent } from './read/readPetFileContent.js';
import { PetFileSerializer } from './write/PetFileSerializer.js';

/** The opened file: lowdb's `Low` (holding the only reference to the content), the file below it, and the serialiser of its bytes. */
export interface PetFileDb {
  db: Low<PetFileContent>;
  /** The adapter below `db`: it also appends a write's change to the journal. */
  data: DurableDataFile<PetFileContent, PetChange>;
  text: DurableTextFile;
  serializer: PetFileSerializer;
}

/**
 * Takes the data file at `realFile` (its real path, so that replacing it never turns a
 * symlink into a file of its own), creating it (mode 0600) when missing, removes temp files
 * a crashed writer left beside it, and reads it with its journal's changes (a line a crash
 * tore cut off first). A damaged or unreadable file throws a
 * DataFileError naming `name`, and is not changed; a file another process owns, a
 * DataFileLockedError. `journalMinBytes`: see DurableDataFile.
 */
export const openPetFileDb = async (realFile: string, name: string, fs: FileSystem, journalMinBytes?: number): Promise<PetFileDb> => {
  const serializer = new PetFileSerializer();
  const empty = emptyPetFileContent();
  const text = await DurableTextFile.take(realFile, { name, fs, initial: () => serializer.serialize(empty) });
  try {
    await text.removeStaleTempFiles().catch(() => {});
    const adapter = new DurableDataFile<PetFileContent, PetChange>(
      text,
      {
        parse: async (file, changes) => {
          const { content, keyLines, petLines } = await readPetFileContent(file, name, changes);
          serializer.read(content, keyLines, petLines);
          return content;
        },
        serialize: (data) => serializer.serialize(data),
        encodeChange: (change) => serializer.encodeChange(change),
      },
      journalMinBytes,
    );
    const db = new Low(adapter, empty);
    try {
      await db.read();
    } catch (error) {
      if (error instanceof DataFileError) throw error;
      throw new DataFileError(name, `The data file ${name} cannot be read: ${systemErrorReason(error).reason}.`, { cause: error });
    }
    return { db, data: adapter, text, serializer };
  } catch (error) {
    await text.release();
    throw error;
  }
};
