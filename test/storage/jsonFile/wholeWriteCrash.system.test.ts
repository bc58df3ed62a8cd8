import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

/**
 * Runs the flood child on `file` until it acknowledged at least `atLeast` keys and `ready()`
 * holds (within 30 s), and a random moment more, then kills it with SIGKILL (or,
 * `after-rename`, until it kills itself); answers what it acknowledged.
 */
const floodAndKill = async (
  file: string,
  prefix: string,
  atLeast: number,
  crash = '',
  ready: () => boolean = () => true,
): Promise<Map<string, number>> => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/storage/jsonFile/keyedFloodChild.ts', file, prefix, crash], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acknowledged = new Map<string, number>();
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const [key, id] = line.split(' ');
      acknowledged.set(key!, Number(id));
    }
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));
  if (crash === '') {
    const deadline = Date.now() + 30_000;
    while (acknowledged.size < atLeast || !ready()) {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`after 30 s of creates (${acknowledged.size} acknowledged) the flood was still not ready to be killed`);
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
    child.kill('SIGKILL');
  }
  expect(await exited).toBe('SIGKILL');
  return acknowledged;
};

/** When the document was last written (a whole write puts a new file in place; appends go to the journal), or 0 before it exists. */
const writtenAt = (file: string): bigint => fs.statSync(file, { bigint: true, throwIfNoEntry: false })?.mtimeNs ?? 0n;

/** Opens the file as a start after the crash would, and checks every key replays its animal, no animal stored twice. */
const expectEveryKeyOnce = async (file: string, acknowledged: Map<string, number>) => {
  const storage = await openJsonFileStorage({ file });
  const ids = (await storage.list({ after: 0, limit: 100_000 })).map(({ id }) => id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const [key, id] of acknowledged) {
    const createdAt = Date.now();
    const retry = await storage.createIdempotent(rex, {
      scope: 'a1b2c3',
      key,
      fingerprint: 'digest-of-payload',
      createdAt,
      expiresAt: createdAt + 86_400_000,
    });
    expect(retry).toMatchObject({ replayed: true, pet: { id } });
  }
  await storage.close();
};

describe('a data file written whole alongside a flood of keyed creates, killed with SIGKILL', () => {
  it('Should keep every acknowledged key with its animal, each stored once, kill after kill', { timeout: 120_000 }, async () => {
    const file = tempDataFile();
    const everything = new Map<string, number>();
    // Each flood more than doubles what the file holds, so the document is written whole
    // during each; the kill waits for the first such write (on a busy disk its fsyncs can
    // take longer than the creates), then comes at a random moment of those that follow.
    for (const [round, atLeast] of [300, 800, 2_000, 5_000].entries()) {
      const writtenBefore = writtenAt(file);
      const writtenWhole = () => writtenAt(file) > writtenBefore;
      for (const [key, id] of await floodAndKill(file, `round-${round}`, atLeast, '', writtenWhole)) everything.set(key, id);
      expect(writtenAt(file)).toBeGreaterThan(writtenBefore);
      await expectEveryKeyOnce(file, everything);
    }
  });

  it('Should keep every acknowledged key once when killed right after the new document took its place, before the journal was cut', {
    timeout: 60_000,
  }, async () => {
    const file = tempDataFile();
    const acknowledged = await floodAndKill(file, 'renamed', 0, 'after-rename');
    const document = JSON.parse(fs.readFileSync(file, 'utf8')) as { pets: { id: number }[] };
    const journal = fs.readFileSync(`${file}.journal`, 'utf8');
    // The new document, and beside it the whole journal: lines it holds already, and those appended since.
    expect(document.pets.length).toBeGreaterThan(0);
    expect(journal).toContain(`"id":${document.pets.at(-1)!.id},`);
    expect(acknowledged.size).toBeGreaterThanOrEqual(200);
    await expectEveryKeyOnce(file, acknowledged);
  });
});
