/**
 * @module Three server processes on one database, over real HTTP: concurrent creates through
 * all three, one killed with SIGKILL mid-burst. Every acknowledged create is there exactly
 * once, ids are distinct, and every instance serves the same pages.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { API_KEY, crash, createStream, until } from '../../support/serverProcess.js';
import { killLeftoverProcesses, startCli } from '../../support/startCli.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
afterEach(killLeftoverProcesses);

/** Every animal an instance lists, walking its `next` links 37 at a time. */
const walkAll = async (url: string): Promise<Pet[]> => {
  const pets: Pet[] = [];
  let next: string | undefined = `${url}/pets?limit=37`;
  while (next) {
    const response: Response = await fetch(next, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(response.status).toBe(200);
    pets.push(...((await response.json()) as Pet[]));
    const link = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    next = link ? new URL(link, url).href : undefined;
  }
  return pets;
};

describe('three instances on one PostgreSQL database', () => {
  it('Should keep every acknowledged create exactly once, with distinct ids and the same pages everywhere, when one is killed mid-burst', {
    timeout: 90_000,
  }, async () => {
    const url = await database.freshDatabase();
    const instances = await Promise.all(
      [1, 2, 3].map(() =>
        startCli(['serve', '--port', '0', '--database', url, '--api-key', API_KEY, '--quiet'], {
          env: { ANIMAL_STORE_CURSOR_SECRET: 'one-secret-for-all-instances' },
        }),
      ),
    );
    const streams = instances.map((instance, index) => createStream(instance.url, 8, `Instance ${index + 1}`));
    await until(() => streams.every((stream) => stream.acknowledged.length >= 50), 'every instance has acknowledged creates', 30_000);

    // Killed in the middle of the burst: its in-flight creates may or may not commit; the acknowledged ones must stay.
    await crash(instances[0]!);
    await until(() => streams[1]!.acknowledged.length >= 300 && streams[2]!.acknowledged.length >= 300, 'the others go on', 30_000);
    await Promise.all(streams.map((stream) => stream.stop()));
    for (const stream of streams) expect(stream.otherStatuses).toEqual([]);

    const acknowledged = streams.flatMap((stream) => stream.acknowledged);
    expect(new Set(acknowledged.map((pet) => pet.id)).size).toBe(acknowledged.length);

    const [fromTwo, fromThree] = await Promise.all([walkAll(instances[1]!.url), walkAll(instances[2]!.url)]);
    expect(fromThree).toEqual(fromTwo);
    const ids = fromTwo.map((pet) => pet.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const stored = new Map(fromTwo.map((pet) => [pet.id, pet]));
    // Exactly as acknowledged, each once (a stored name is unique to its request).
    for (const pet of acknowledged) expect(stored.get(pet.id)).toEqual(pet);
    expect(new Set(fromTwo.map((pet) => pet.name)).size).toBe(fromTwo.length);
    // Besides those, only what the killed instance had in flight may have been stored, and
    // ids have no gaps: each commit takes the next ids, and nothing that failed kept any.
    expect(fromTwo.length - acknowledged.length).toBeLessThanOrEqual(8);
    const acknowledgedIds = new Set(acknowledged.map((pet) => pet.id));
    const unacknowledged = fromTwo.filter((pet) => !acknowledgedIds.has(pet.id));
    expect(unacknowledged.every((pet) => pet.name.startsWith('Instance 1 '))).toBe(true);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, index) => index + 1));

    // A fresh instance in place of the killed one serves the same pages.
    const replacement = await startCli(['serve', '--port', '0', '--database', url, '--api-key', API_KEY, '--quiet']);
    expect(await walkAll(replacement.url)).toEqual(fromTwo);
  });
});
