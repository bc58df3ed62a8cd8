import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { createControlledFileSystem, type WritePlan } from './controlledFileSystem.js';
import { readDataFile } from './readDataFile.js';

const outcomes = fc.constantFrom<WritePlan>({}, {}, {}, { failOpen: true }, { failFileSync: true }, { failFolderSync: true });

describe('JSON-file storage under any mix of failing writes', () => {
  it('Should show, keep on disk and reopen exactly the acknowledged animals, each id given once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 6 }),
        fc.array(outcomes, { maxLength: 12 }),
        async (waves, plans) => {
          const folder = tempFolder();
          const file = path.join(folder, 'animals.json');
          const { fs: controlled, control } = createControlledFileSystem(folder);
          const storage = await openJsonFileStorageOn({ file }, controlled);
          for (const [offset, plan] of plans.entries()) control.plans.set(control.writes + offset + 1, plan);

          const acknowledged: Pet[] = [];
          let rejected = 0;
          let sent = 0;
          // Each wave is a burst of concurrent creates, started while the last may still be writing.
          const bursts = waves.map(async (size, wave) => {
            // Later waves start after more turns of the event loop, while earlier writes may be under way.
            for (let turn = 0; turn < wave; turn++) await new Promise((resolve) => setImmediate(resolve));
            const results = await Promise.allSettled(
              Array.from({ length: size }, () => storage.create({ name: `Pet ${sent++}`, categoryId: 1, status: 'sold' })),
            );
            for (const result of results) {
              if (result.status === 'fulfilled') acknowledged.push(result.value);
              else {
                expect(result.reason).toMatchObject({ code: 'storage_unavailable' });
                rejected++;
              }
            }
          });
          await Promise.all(bursts);
          // The document and its journal while it runs (what a server opening it after a crash serves); the document alone once stopped.
          const onDisk = () => readDataFile(file) as { nextId: number; pets: Pet[] };
          const documentAlone = () => JSON.parse(fs.readFileSync(file, 'utf8')) as { nextId: number; pets: Pet[] };

          expect(acknowledged.length + rejected).toBe(sent);
          const ids = acknowledged.map((pet) => pet.id);
          expect(new Set(ids).size).toBe(ids.length);
          const byId = () => [...acknowledged].sort((a, b) => a.id - b.id);
          // Readers see exactly the acknowledged animals.
          expect(await storage.list({ after: 0, limit: 1_000 })).toEqual(byId());
          // The file holds every acknowledged animal. It may also hold failed ones, when a write
          // failed after its rename or its journal line could not be cut back; their ids are
          // then never given to another animal.
          const kept = onDisk().pets;
          for (const pet of acknowledged) expect(kept).toContainEqual(pet);
          const failedOnDisk = kept.filter((pet) => !ids.includes(pet.id));
          for (const pet of failedOnDisk) expect(pet.id).toBeLessThan(onDisk().nextId);

          // Once the disk works again, the next write leaves exactly the acknowledged animals.
          control.plans.clear();
          acknowledged.push(await storage.create({ name: 'Healing', categoryId: 1, status: 'sold' }));
          expect(failedOnDisk.map((pet) => pet.id)).not.toContain(acknowledged.at(-1)!.id);
          await storage.close();
          expect(documentAlone().pets).toEqual(byId());
          expect(fs.readdirSync(folder)).toEqual(['animals.json']);

          const reopened = await openJsonFileStorage({ file });
          expect(await reopened.list({ after: 0, limit: 1_000 })).toEqual(byId());
          const next = await reopened.create({ name: 'After', categoryId: 1, status: 'sold' });
          expect(next.id).toBeGreaterThan(Math.max(...ids, ...failedOnDisk.map((pet) => pet.id), acknowledged.at(-1)!.id));
          await reopened.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
