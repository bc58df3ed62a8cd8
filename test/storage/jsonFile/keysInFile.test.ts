import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPetService } from '../../../core/index.js';
import type { IdempotencyKey, StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { DurableTextFile } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { parsePetFile } from '../../../storage/jsonFile/read/parsePetFile.js';
import { KeyLines } from '../../../storage/jsonFile/write/KeyLines.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { journalLines } from './readDataFile.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

/** A key of the API key `a1b2c3`, arriving at `createdAt` and living `lifetime` milliseconds. */
const keyAt = (key: string, createdAt: number, lifetime = 86_400_000): IdempotencyKey => ({
  scope: 'a1b2c3',
  key,
  fingerprint: 'digest-of-payload',
  createdAt,
  expiresAt: createdAt + lifetime,
});

/** A format-2 file as the previous release wrote it: one animal, then one key, per line. */
const formatTwo = (nextId: number, pets: Pet[], keys: StoredIdempotencyKey[]): string => {
  const lines = (items: unknown[]) => (items.length === 0 ? '' : `\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n`);
  const inFile = keys.map(({ createdAt, expiresAt, ...key }) => ({
    scope: key.scope,
    key: key.key,
    fingerprint: key.fingerprint,
    petId: key.petId,
    createdAt: new Date(createdAt).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
  }));
  return `{"format":2,"nextId":${nextId},"pets":[${lines(pets)}],"idempotencyKeys":[${lines(inFile)}]}\n`;
};

describe('Idempotency-Keys in the data file', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('Should read a file the previous release wrote, and write it back the same with the new animal and key at their ends', async () => {
    const file = tempDataFile();
    const now = Date.now();
    const pets: Pet[] = [
      { id: 1, name: 'Kept', categoryId: 1, status: 'sold' },
      { id: 4, name: 'Also "kept"', categoryId: 2, status: 'pending' },
    ];
    const keys = [
      { ...keyAt('first', now - 1_000), petId: 1 },
      { ...keyAt('second', now - 500), petId: 4 },
    ];
    fs.writeFileSync(file, formatTwo(5, pets, keys));
    const storage = await openJsonFileStorage({ file });
    expect(await storage.createIdempotent(rex, keyAt('second', now))).toMatchObject({ pet: pets[1], replayed: true });
    const created = await storage.createIdempotent(rex, keyAt('third', now));
    await storage.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(formatTwo(6, [...pets, created.pet], [...keys, created.stored]));
  });

  it("Should replay, after an upgrade, a key the file holds with an earlier version's 32-character fingerprint, and refuse another payload", async () => {
    const file = tempDataFile();
    const apiKey = 'a-key-of-an-earlier-version';
    const sha256 = (text: string) => createHash('sha256').update(text).digest();
    const older = {
      scope: sha256(apiKey).subarray(0, 6).toString('hex'),
      key: 'order-7',
      fingerprint: sha256(JSON.stringify([rex.name, rex.categoryId, rex.status]))
        .subarray(0, 24)
        .toString('base64url'),
      petId: 1,
      createdAt: Date.now() - 60_000,
      expiresAt: Date.now() - 60_000 + 86_400_000,
    };
    fs.writeFileSync(file, formatTwo(2, [{ id: 1, ...rex }], [older]));
    const storage = await openJsonFileStorage({ file });
    const service = createPetService({ keys: [apiKey], storage });
    const post = (body: object) =>
      service(
        new Request('http://localhost/v1/pets', {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': '"order-7"' },
          body: JSON.stringify(body),
        }),
      );
    const retry = await post(rex);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ id: 1, ...rex });
    const reused = await post({ ...rex, name: 'Tom' });
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as { code: string }).code).toBe('idempotency_key_reused');
    await storage.close();
    expect(parsePetFile(fs.readFileSync(file, 'utf8'), file).pets).toEqual([{ id: 1, ...rex }]);
  });

  it('Should let expired keys leave by the sweep, writing nothing for them, and the file when it is next written whole', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], now: Date.parse('2026-11-25T00:00:00Z') });
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file, keySweep: { everyMilliseconds: 100, atMost: 2 } });
    for (const name of ['a', 'b', 'c']) await storage.createIdempotent(rex, keyAt(name, Date.now(), 1_000));
    const keysInJournal = () => journalLines(file).flatMap((line) => line.idempotencyKeys.map((stored) => (stored as { key: string }).key));
    vi.advanceTimersByTime(900);
    await storage.create(rex);
    expect(keysInJournal()).toEqual(['a', 'b', 'c']);
    // The tick at their expiry forgets two of the three, the next tick the third: no write carries them again.
    vi.advanceTimersByTime(100);
    await storage.create(rex);
    vi.advanceTimersByTime(100);
    await storage.create(rex);
    expect(keysInJournal()).toEqual(['a', 'b', 'c']);
    expect(journalLines(file)).toHaveLength(6);
    await storage.close();
    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(onDisk.idempotencyKeys).toEqual([]);
    expect(onDisk.pets).toHaveLength(6);
  });

  it('Should keep every key through whole writes that read the keys before them back from the file', { timeout: 30_000 }, async () => {
    const file = tempDataFile();
    const readBack = vi.spyOn(DurableTextFile.prototype, 'readOwnBytes');
    const reused = vi.spyOn(KeyLines.prototype, 'reuse');
    // From the smallest journal on: the file is written whole once the journal outgrows it.
    const wholeWrites = vi.spyOn(DurableTextFile.prototype, 'replace');
    const storage = await openJsonFileStorage({ file, journalMinBytes: 0 });
    const created = new Map<string, number>();
    // Each round's journal outgrows the file as it was before the round, so each ends in a whole write.
    for (const [round, count] of [40, 200, 1_000, 5_000].entries()) {
      const keys = Array.from({ length: count }, (_, at) => keyAt(`round-${round}-key-${at}`, Date.now()));
      const answers = await Promise.all(keys.map((key) => storage.createIdempotent(rex, key)));
      for (const [at, { pet }] of answers.entries()) created.set(keys[at]!.key, pet.id);
      await vi.waitFor(() => expect(wholeWrites).toHaveBeenCalledTimes(round + 1), { timeout: 5_000 });
      await wholeWrites.mock.results[round]!.value;
    }
    await storage.close();
    // The second whole write on found the keys the one before wrote in the file, and copied them from there.
    const reusedKeys = async (from = 0) =>
      (await Promise.all(reused.mock.results.slice(from).map(({ value }) => value as Promise<boolean>))).filter(Boolean).length;
    expect(await reusedKeys()).toBe(3);
    const gaveBytes = await Promise.all(readBack.mock.results.map(({ value }) => value as Promise<Buffer | undefined>));
    expect(gaveBytes.every((bytes) => bytes !== undefined)).toBe(true);
    // The file alone holds every key, once, in order, each with its animal.
    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8')) as { idempotencyKeys: { key: string; petId: number }[] };
    expect(onDisk.idempotencyKeys.map(({ key, petId }) => [key, petId])).toEqual([...created]);
    // After a start, the first whole write reads back the keys of the file as it was read.
    const reopened = await openJsonFileStorage({ file, journalMinBytes: 0 });
    const writesBefore = wholeWrites.mock.calls.length;
    const reusesBefore = reused.mock.calls.length;
    const more = Array.from({ length: 8_000 }, (_, at) => keyAt(`after-start-key-${at}`, Date.now()));
    for (const [at, { pet }] of (await Promise.all(more.map((key) => reopened.createIdempotent(rex, key)))).entries()) {
      created.set(more[at]!.key, pet.id);
    }
    await vi.waitFor(() => expect(wholeWrites.mock.calls.length).toBeGreaterThan(writesBefore), { timeout: 5_000 });
    await wholeWrites.mock.results[writesBefore]!.value;
    expect(await reusedKeys(reusesBefore)).toBe(1);
    for (const [key, id] of created) {
      const retry = await reopened.createIdempotent(rex, keyAt(key, Date.now()));
      expect(retry).toMatchObject({ replayed: true, pet: { id } });
    }
    await reopened.close();
    const atLast = JSON.parse(fs.readFileSync(file, 'utf8')) as { idempotencyKeys: { key: string; petId: number }[] };
    expect(atLast.idempotencyKeys.map(({ key, petId }) => [key, petId])).toEqual([...created]);
    wholeWrites.mockRestore();
    readBack.mockRestore();
    reused.mockRestore();
  });

  it('Should copy the keys that came since the last whole write from their journal lines into the next, as a fresh encoding writes them', {
    timeout: 30_000,
  }, async () => {
    const file = tempDataFile();
    const fromJournal = vi.spyOn(DurableTextFile.prototype, 'readJournalBytes');
    const copied = vi.spyOn(KeyLines.prototype, 'append');
    const wholeWrites = vi.spyOn(DurableTextFile.prototype, 'replace');
    const storage = await openJsonFileStorage({ file, journalMinBytes: 0 });
    const created = new Map<string, number>();
    // Keys with quotes, backslashes and non-ASCII names beside them: offsets in bytes, not characters.
    const named = (round: number, at: number) => ({ ...rex, name: at % 3 === 0 ? `Zoë "${round}"` : 'Rex' });
    for (const [round, count] of [40, 300, 2_000, 6_000].entries()) {
      const keys = Array.from({ length: count }, (_, at) => keyAt(`round ${round} "key" \\ ${at}`, Date.now()));
      const answers = await Promise.all(keys.map((key, at) => storage.createIdempotent(named(round, at), key)));
      for (const [at, { pet }] of answers.entries()) created.set(keys[at]!.key, pet.id);
      await vi.waitFor(() => expect(wholeWrites).toHaveBeenCalledTimes(round + 1), { timeout: 5_000 });
      await wholeWrites.mock.results[round]!.value;
      // The document holds every key so far, laid out byte for byte as a fresh serialiser lays out what it holds.
      const text = fs.readFileSync(file, 'utf8');
      const data = parsePetFile(text, file);
      expect(data.idempotencyKeys.map(({ key, petId }) => [key, petId])).toEqual([...created]);
      expect(Buffer.concat(new PetFileSerializer().serialize(data)).toString('utf8')).toBe(text);
    }
    // From the second whole write on, most keys that came since were copied from the journal
    // (not those that came while a whole write ran: that journal was replaced by then).
    const read = await Promise.all(fromJournal.mock.results.map(({ value }) => value as Promise<Buffer | undefined>));
    expect(read.filter((bytes) => bytes !== undefined).length).toBeGreaterThanOrEqual(3);
    const copiedKeys = copied.mock.calls.reduce(
      (sum, [, lines], at) => sum + (copied.mock.results[at]!.value ? lines.end - lines.start : 0),
      0,
    );
    expect(copiedKeys).toBeGreaterThan(6_000);
    for (const [key, id] of created) {
      expect(await storage.createIdempotent(rex, keyAt(key, Date.now()))).toMatchObject({ replayed: true, pet: { id } });
    }
    await storage.close();
    copied.mockRestore();
    fromJournal.mockRestore();
    wholeWrites.mockRestore();
  });
});

describe('A clean stop', () => {
  it('Should write the keys that came since the last whole write from their journal lines and the rest from the file, not encode them all again', {
    timeout: 30_000,
  }, async () => {
    const file = tempDataFile();
    const first = await openJsonFileStorage({ file });
    const before = Array.from({ length: 3_000 }, (_, at) => keyAt(`before-${at}`, Date.now()));
    await Promise.all(before.map((key) => first.createIdempotent(rex, key)));
    await first.close();
    const storage = await openJsonFileStorage({ file });
    const keys = Array.from({ length: 3_000 }, (_, at) => keyAt(`since "${at}"`, Date.now()));
    // Creates that share journal lines, as creates under load do.
    for (let at = 0; at < keys.length; at += 100)
      await Promise.all(keys.slice(at, at + 100).map((key) => storage.createIdempotent(rex, key)));
    const copied = vi.spyOn(KeyLines.prototype, 'append');
    const reused = vi.spyOn(KeyLines.prototype, 'reuse');
    await storage.close();
    const copiedKeys = copied.mock.calls.reduce(
      (sum, [, lines], at) => sum + (copied.mock.results[at]!.value ? lines.end - lines.start : 0),
      0,
    );
    expect(copiedKeys).toBeGreaterThan(2_500);
    expect(await Promise.all(reused.mock.results.map(({ value }) => value as Promise<boolean>))).toContain(true);
    const text = fs.readFileSync(file, 'utf8');
    const data = parsePetFile(text, file);
    expect(data.idempotencyKeys.map(({ key }) => key)).toEqual([...before, ...keys].map(({ key }) => key));
    expect(Buffer.concat(new PetFileSerializer().serialize(data)).toString('utf8')).toBe(text);
    expect(fs.existsSync(`${file}.journal`)).toBe(false);
    copied.mockRestore();
    reused.mockRestore();
  });
});
