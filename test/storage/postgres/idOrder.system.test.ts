/**
 * @module Id order is visibility order across instances: writer processes create at once
 * while pagers walk with cursors, and every pager sees every id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PetStorage } from '../../../core/PetStorage.js';
import { openPostgresStorage } from '../../../storage/postgres/openPostgresStorage.js';
import { killLeftoverProcesses, spawnNode } from '../../support/nodeProcess.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
afterEach(killLeftoverProcesses);

const WRITERS = 4;
const PER_WRITER = 1_500;
const PAGERS = 6;

/**
 * Walks as a client would, each page starting after the last id seen, never going back,
 * until the writers have all finished and a page comes back empty. Answers the ids seen and
 * how many pages came back while the writers were writing.
 */
const walk = async (storage: PetStorage, writing: () => boolean) => {
  const seen: number[] = [];
  let after = 0;
  let pagesDuringWrites = 0;
  for (;;) {
    const wasWriting = writing();
    const page = await storage.list({ after, limit: 5 });
    for (const pet of page) seen.push(pet.id);
    if (page.length > 0) after = page.at(-1)!.id;
    if (wasWriting && page.length > 0) pagesDuringWrites++;
    if (!wasWriting && page.length === 0) return { seen, pagesDuringWrites };
  }
};

describe('PostgreSQL storage: ids become visible in ascending order across instances', () => {
  it('Should let pagers walking with cursors see every animal that writer processes create meanwhile', { timeout: 120_000 }, async () => {
    const schema = database.freshSchema();
    // Opened (and migrated) first, so the writers and the pagers start on a ready schema.
    const reader = await openPostgresStorage({ connectionString: database.url(), schema, poolSize: PAGERS });
    // Each create waits 0–4 ms after its rows are in and before it commits: that widens the
    // window in which a create holding a later id could commit before one holding an
    // earlier id. With ids from a sequence, pagers then miss animals in almost every run;
    // the storage's lock on pet_ids keeps commits in id order however long they take.
    await database.admin().query(`
      CREATE FUNCTION ${schema}.slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(random() * 0.004); RETURN NULL; END $$;
      CREATE TRIGGER slow_commit AFTER INSERT ON ${schema}.pets FOR EACH STATEMENT EXECUTE FUNCTION ${schema}.slow_commit();
    `);
    const writers = Array.from({ length: WRITERS }, (_, index) =>
      spawnNode([
        '--import',
        'tsx',
        'test/storage/postgres/writerProcess.ts',
        database.url(),
        schema,
        String(PER_WRITER),
        '8',
        `Writer ${index}`,
      ]),
    );
    let running = writers.length;
    const finished = Promise.all(
      writers.map((writer) =>
        writer.exited.then((exit) => {
          running--;
          return exit;
        }),
      ),
    );
    // Several pagers at once: each is a chance to look at the newest ids at the wrong moment.
    const walks = await Promise.all(Array.from({ length: PAGERS }, () => walk(reader, () => running > 0)));
    const exits = await finished;
    for (const [index, exit] of exits.entries()) expect(exit, writers[index]!.stderr()).toEqual({ code: 0, signal: null });

    const acknowledged = writers.flatMap((writer) => JSON.parse(writer.stdout()) as number[]);
    expect(acknowledged).toHaveLength(WRITERS * PER_WRITER);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
    for (const { seen, pagesDuringWrites } of walks) {
      // The pager really walked while the writers wrote, so the check below means something.
      expect(pagesDuringWrites).toBeGreaterThan(50);
      // Every acknowledged id was seen, in order: none became visible behind a cursor.
      expect(seen).toEqual([...acknowledged].sort((a, b) => a - b));
    }
    await reader.close();
  });
});
