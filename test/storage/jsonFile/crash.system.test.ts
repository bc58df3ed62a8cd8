import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { crash, createStream, getJson, readDataFile, startServer, tempDataFile, until } from '../../support/serverProcess.js';

/**
 * One chain of crash rounds on one data file: creating clients, kill -9 at a random moment,
 * restart at once on the same file (which also proves a crashed owner's lock does not block
 * a restart), then check the file against every 201 the clients received. `seeded` animals
 * are in the file from the start: a bigger file makes each write longer, so more kills land
 * in the middle of one.
 */
const crashRounds = async (rounds: number, seeded: number) => {
  const file = tempDataFile();
  const seed: Pet[] = Array.from({ length: seeded }, (_, offset) => ({
    id: offset + 1,
    name: `Seeded ${offset + 1}`,
    categoryId: 1,
    status: 'pending',
  }));
  fs.writeFileSync(
    file,
    Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: seeded + 1, pets: seed, idempotencyKeys: [] })),
  );
  const everAcknowledged = new Map<number, Pet>(seed.map((pet) => [pet.id, pet]));
  let server = await startServer(file);
  let nextIdAtStart = seeded + 1;
  for (let round = 1; round <= rounds; round++) {
    const stream = createStream(server.url, 6, `Round ${round}`);
    await until(() => stream.acknowledged.length > 0 || stream.otherStatuses.length > 0, 'a first create was answered');
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
    await crash(server);
    await stream.stop();
    expect(stream.otherStatuses).toEqual([]);

    server = await startServer(file);
    const data = readDataFile(file);
    const onDisk = new Map(data.pets.map((pet) => [pet.id, pet]));
    for (const pet of stream.acknowledged) {
      // Acknowledged means on disk, as it was acknowledged.
      expect(onDisk.get(pet.id)).toEqual(pet);
      // Ids continue above everything the file held when this server started: no reuse.
      expect(pet.id).toBeGreaterThanOrEqual(nextIdAtStart);
      expect(everAcknowledged.has(pet.id)).toBe(false);
      everAcknowledged.set(pet.id, pet);
    }
    for (const [id, pet] of everAcknowledged) expect(onDisk.get(id)).toEqual(pet);
    expect(data.nextId).toBeGreaterThan(Math.max(0, ...everAcknowledged.keys()));
    nextIdAtStart = data.nextId;
  }
  // The restarted server serves what the file holds.
  const last = [...everAcknowledged.values()].sort((a, b) => a.id - b.id).at(-1)!;
  expect((await getJson(server.url, `/pets/${last.id}`)).body).toEqual(last);
  await crash(server);
  return everAcknowledged.size - seeded;
};

describe('the real server killed with SIGKILL while creating', () => {
  it('Should keep every acknowledged animal and never reuse an id, over 20 crash rounds', { timeout: 90_000 }, async () => {
    // Two files, ten rounds each, side by side: the rounds are spent mostly starting Node.
    // One starts empty; one holds 20,000 animals, so each of its writes takes a while.
    const acknowledged = await Promise.all([crashRounds(10, 0), crashRounds(10, 20_000)]);
    for (const count of acknowledged) expect(count).toBeGreaterThanOrEqual(10);
  });
});
