import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import { buffersOf, IdempotencyKeys, type KeySpill } from '../../storage/IdempotencyKeys.js';

const DAY = 86_400_000;

/** The key `key` of scope `scope`, arriving at `createdAt` (a day's life), for animal `petId`. */
const stored = (key: string, petId: number, createdAt = 1_000, scope = 'a1b2'): StoredIdempotencyKey => ({
  scope,
  key,
  fingerprint: `f-${key}`,
  petId,
  createdAt,
  expiresAt: createdAt + DAY,
});

describe('IdempotencyKeys', () => {
  it('Should find a live key by scope and key, and give back exactly what was kept', () => {
    const keys = new IdempotencyKeys([stored('a', 1), stored('a', 2, 1_000, 'other')]);
    expect(keys.find({ ...stored('a', 0), createdAt: 5_000 })).toEqual(stored('a', 1));
    expect(keys.find({ ...stored('a', 0, 1_000, 'other'), createdAt: 5_000 })).toEqual(stored('a', 2, 1_000, 'other'));
    expect(keys.find({ ...stored('b', 0), createdAt: 5_000 })).toBeUndefined();
    expect([...keys.values()]).toEqual([stored('a', 1), stored('a', 2, 1_000, 'other')]);
  });

  it("Should keep the service's keys in their chunks' columns alone, and only odd ones apart", () => {
    const keys = new IdempotencyKeys();
    const digest = 'C1DBaWxuBvU';
    const serviceKey = (at: number): StoredIdempotencyKey => ({
      scope: 'a1b2',
      key: `5f1c2a9e-0b7d-4c1e-9a2b-${at.toString(16).padStart(12, '0')}`,
      fingerprint: digest,
      petId: at + 1,
      createdAt: 1_700_000_000_000 + at * 7,
      expiresAt: 1_700_000_000_000 + at * 7 + DAY,
    });
    // Three chunks' worth, some swept, as a day of a kiosk's creates.
    for (let at = 0; at < 10_000; at++) keys.add(serviceKey(at));
    keys.sweep(1_700_000_000_000 + 3_000 * 7 + DAY, 100_000);
    for (let at = 10_000; at < 12_000; at++) keys.add(serviceKey(at));
    expect(keys.keptApart).toBe(0);
    expect(keys.at(keys.first)).toEqual(serviceKey(3_001));
    expect(keys.at(keys.end - 1)).toEqual(serviceKey(11_999));
    // A key lifetime changed between two starts, and a time a person wrote with a fraction of a millisecond.
    keys.add({ ...serviceKey(12_000), expiresAt: serviceKey(12_000).createdAt + 3_600_000 });
    keys.add({ ...serviceKey(12_001), createdAt: serviceKey(12_001).createdAt + 0.5 });
    expect(keys.keptApart).toBe(2);
    expect(keys.at(keys.end - 2)).toEqual({ ...serviceKey(12_000), expiresAt: serviceKey(12_000).createdAt + 3_600_000 });
    expect(keys.at(keys.end - 1)).toEqual({ ...serviceKey(12_001), createdAt: serviceKey(12_001).createdAt + 0.5 });
  });

  it("Should keep the fingerprints of a file another program seeded in the chunks' columns, and hand them to another thread whole", () => {
    // A seeding script's fingerprints: a longer base64url digest, hex, a word; one chunk mixes them with the service's.
    const fingerprintOf = (at: number) => {
      if (at < 5_000) return `Qk9vVWJ6cE1hR0Z5ZFdWd1lXeHZZV1${at % 10}`;
      if (at < 9_000) return (at * 7919).toString(16);
      return at % 3 === 0 ? `seeded ${at}` : 'C1DBaWxuBvU';
    };
    const seeded = Array.from({ length: 12_000 }, (_, at) => ({ ...stored(`k${at}`, at + 1, at), fingerprint: fingerprintOf(at) }));
    const keys = new IdempotencyKeys(seeded);
    expect(keys.keptApart).toBe(0);
    const snapshot = keys.snapshot();
    const moved = structuredClone(snapshot, { transfer: buffersOf(snapshot) });
    const received = IdempotencyKeys.fromSnapshot(moved);
    // Moved, not copied: the sending side's arrays are left empty.
    expect(snapshot.chunks.map(({ texts, fingerprints }) => [texts.text.byteLength, fingerprints?.text.byteLength])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    expect([...received.values()]).toEqual(seeded);
    for (const at of [0, 4_999, 5_000, 9_000, 9_001, 11_999]) expect(received.find({ ...seeded[at]!, createdAt: at })).toEqual(seeded[at]);
    // A write that fails after a run of the service's fingerprints, and one among seeded ones.
    for (const mark of [9_100, 4_500]) {
      received.truncate(mark);
      received.add({ ...stored('again', mark + 1, mark), fingerprint: 'another program' });
      expect([...received.values()]).toEqual([
        ...seeded.slice(0, mark),
        { ...stored('again', mark + 1, mark), fingerprint: 'another program' },
      ]);
    }
  });

  it('Should keep the scopes of more API keys than a scope column counts apart, each found under its own scope alone', () => {
    const keys = new IdempotencyKeys();
    const scopes = Array.from({ length: 70_000 }, (_, at) => at.toString(16));
    const keyOf = (at: number) => ({ ...stored('same-key', at + 1, 0, scopes[at]), fingerprint: 'C1DBaWxuBvU' });
    for (const at of scopes.keys()) keys.add(keyOf(at));
    // The 65,536th scope on: its key is kept apart, the rest in the columns.
    expect(keys.keptApart).toBe(70_000 - 65_535);
    for (const at of [0, 65_534, 65_535, 65_536, 69_999]) expect(keys.find({ ...keyOf(at), createdAt: 5 })).toEqual(keyOf(at));
    expect(keys.find({ ...stored('same-key', 0, 0, 'not-a-scope-seen'), createdAt: 5 })).toBeUndefined();
    expect([...keys.values()]).toEqual(Array.from(scopes.keys(), keyOf));
  });

  it('Should count a key expired by the arrival of a request as absent, before any sweep', () => {
    const keys = new IdempotencyKeys([stored('a', 1)]);
    expect(keys.find({ ...stored('a', 0), createdAt: 1_000 + DAY })).toBeUndefined();
    expect(keys.size).toBe(1);
  });

  it('Should sweep at most the number asked, oldest first, and stop at the first live key', () => {
    const keys = new IdempotencyKeys(Array.from({ length: 10 }, (_, at) => stored(`k${at}`, at + 1, at)));
    // Keys 0..5 expire at or before DAY + 5.
    expect(keys.sweep(DAY + 5, 4)).toBe(4);
    expect([keys.first, keys.size]).toEqual([4, 6]);
    expect(keys.sweep(DAY + 5, 100)).toBe(2);
    expect(keys.sweep(DAY + 5, 100)).toBe(0);
    expect([...keys.values()].map(({ key }) => key)).toEqual(['k6', 'k7', 'k8', 'k9']);
    expect(keys.find({ ...stored('k2', 0), createdAt: 0 })).toBeUndefined();
  });

  it('Should keep a replaced expired key out of reach, and sweeping it must not forget its successor', () => {
    const keys = new IdempotencyKeys([stored('a', 1, 0)]);
    keys.add(stored('a', 2, DAY));
    expect(keys.find({ ...stored('a', 0), createdAt: DAY + 1 })?.petId).toBe(2);
    expect(keys.sweep(DAY, 10)).toBe(1);
    expect(keys.find({ ...stored('a', 0), createdAt: DAY + 1 })?.petId).toBe(2);
  });

  it('Should forget the keys added after a mark when a write fails, and only those', () => {
    const keys = new IdempotencyKeys([stored('a', 1)]);
    const mark = keys.end;
    keys.add(stored('b', 2));
    keys.add(stored('c', 3));
    keys.truncate(mark);
    expect([...keys.values()].map(({ key }) => key)).toEqual(['a']);
    expect(keys.find({ ...stored('b', 0), createdAt: 2_000 })).toBeUndefined();
    keys.add(stored('d', 4));
    expect(keys.find({ ...stored('d', 0), createdAt: 2_000 })?.petId).toBe(4);
  });

  it('Should keep every key through growth while the front is swept (a ring that wraps)', () => {
    const keys = new IdempotencyKeys();
    let swept = 0;
    for (let at = 0; at < 5_000; at++) {
      keys.add(stored(`k${at}`, at + 1, at));
      if (at % 3 === 0) swept += keys.sweep(at - 1_500 + DAY, 1);
    }
    expect(keys.first).toBe(swept);
    expect(keys.size).toBe(5_000 - swept);
    for (const at of [swept, 2_500, 4_999]) expect(keys.find({ ...stored(`k${at}`, 0), createdAt: at })?.petId).toBe(at + 1);
    expect([...keys.values()].map(({ petId }) => petId)).toEqual(Array.from({ length: 5_000 - swept }, (_, at) => swept + at + 1));
  });

  it("Should give back every fingerprint as kept, the service's digests (packed) and any other text, through growth, sweeps and failed writes", () => {
    const digest = fc.uint8Array({ minLength: 8, maxLength: 8 }).map((bytes) => Buffer.from(bytes).toString('base64url'));
    const olderDigest = fc.uint8Array({ minLength: 24, maxLength: 24 }).map((bytes) => Buffer.from(bytes).toString('base64url'));
    const other = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ minLength: 11, maxLength: 11 }),
      fc.string({ minLength: 32, maxLength: 32 }),
      // Eleven base64url characters that are not 8 bytes spelled as toBase64Url spells them (the last one's low bits set).
      fc.constant(`${'A'.repeat(10)}B`),
      fc.constant(`${'A'.repeat(31)}=`),
    );
    // An earlier version's 32-character digest is kept as its first 8 bytes: all a fingerprint is compared by.
    const asKept = (fingerprint: string) =>
      fingerprint.length === 32 && /^[\w-]+$/.test(fingerprint)
        ? Buffer.from(fingerprint, 'base64url').subarray(0, 8).toString('base64url')
        : fingerprint;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(digest, olderDigest, other), { minLength: 1, maxLength: 3_000 }),
        fc.nat(3_000),
        (fingerprints, cut) => {
          const keys = new IdempotencyKeys();
          const kept: StoredIdempotencyKey[] = [];
          for (const [at, fingerprint] of fingerprints.entries()) {
            const key = { ...stored(`k${at}`, at + 1, at), fingerprint };
            keys.add(key);
            kept.push({ ...key, fingerprint: asKept(fingerprint) });
            if (at % 7 === 0) keys.sweep(at - 700 + DAY, 3);
          }
          const mark = Math.max(keys.first, Math.min(cut, keys.end));
          keys.truncate(mark);
          expect([...keys.values()]).toEqual(kept.slice(keys.first, mark));
        },
      ),
      { numRuns: 30 },
    );
  });
});

/** What IdempotencyKeys must do, as plainly as it can be said: an array and a map of strings. */
class ModelKeys {
  first = 0;
  readonly kept: StoredIdempotencyKey[] = [];
  readonly newest = new Map<string, number>();

  get end(): number {
    return this.first + this.kept.length;
  }

  add(stored: StoredIdempotencyKey): void {
    this.newest.set(JSON.stringify([stored.scope, stored.key]), this.end);
    this.kept.push(stored);
  }

  find(scope: string, key: string, now: number): StoredIdempotencyKey | undefined {
    const sequence = this.newest.get(JSON.stringify([scope, key]));
    const stored = sequence === undefined ? undefined : this.kept[sequence - this.first]!;
    return stored && stored.expiresAt > now ? stored : undefined;
  }

  forget(sequence: number, stored: StoredIdempotencyKey): void {
    const name = JSON.stringify([stored.scope, stored.key]);
    if (this.newest.get(name) === sequence) this.newest.delete(name);
  }

  sweep(now: number, atMost: number): number {
    let forgotten = 0;
    while (forgotten < atMost && this.kept.length > 0 && this.kept[0]!.expiresAt <= now) {
      this.forget(this.first++, this.kept.shift()!);
      forgotten++;
    }
    return forgotten;
  }

  truncate(end: number): void {
    while (this.end > Math.max(end, this.first)) this.forget(this.end - 1, this.kept.pop()!);
  }
}

/**
 * A spill in memory that fails every `failEvery`-th write (a full disk), and overwrites the
 * bytes it is told no chunk reads any more, so a chunk that read them would give wrong keys.
 */
class MemorySpill implements KeySpill {
  bytes = new Uint8Array(0);
  writes = 0;
  reads = 0;
  released = 0;
  constructor(readonly failEvery = 0) {}

  write(bytes: Uint8Array): number | undefined {
    this.writes++;
    if (this.failEvery > 0 && this.writes % this.failEvery === 0) return undefined;
    const at = this.bytes.length;
    const grown = new Uint8Array(at + bytes.length);
    grown.set(this.bytes);
    grown.set(bytes, at);
    this.bytes = grown;
    return at;
  }

  read(at: number, length: number): Uint8Array {
    this.reads++;
    if (at < this.released || at + length > this.bytes.length) throw new Error(`read of released or unwritten bytes at ${at}`);
    return this.bytes.slice(at, at + length);
  }

  releaseBefore(at: number): void {
    this.bytes.fill(0x5a, this.released, at);
    this.released = Math.max(this.released, at);
  }
}

describe('IdempotencyKeys spilling full chunks', () => {
  const uuidKey = (at: number): StoredIdempotencyKey => ({
    scope: 'a1b2',
    key: `5f1c2a9e-0b7d-4c1e-9a2b-${at.toString(16).padStart(12, '0')}`,
    fingerprint: Buffer.from(Uint32Array.of(at, at * 7).buffer).toString('base64url'),
    petId: at + 1,
    createdAt: 1_700_000_000_000 + at,
    expiresAt: 1_700_000_000_000 + at + DAY,
  });
  const asked = (key: StoredIdempotencyKey, now = key.createdAt) => ({ ...key, fingerprint: 'other', createdAt: now });

  it('Should read a spilled key back only when asked for it, and find, sweep, take back and hand on every key as before', () => {
    const spill = new MemorySpill();
    const keys = new IdempotencyKeys();
    keys.spillTo(spill);
    for (let at = 0; at < 5 * 4096 + 100; at++) keys.add(uuidKey(at));
    // Six chunks: the four before the last two went out, and adding new keys read nothing back.
    expect(spill.writes).toBe(4);
    expect(spill.reads).toBe(0);
    expect(keys.find(asked(uuidKey(5 * 4096 + 200)))).toBeUndefined();
    expect(spill.reads).toBe(0);
    for (const at of [0, 1, 4095, 4096, 9000, 16383, 16384, 20579]) expect(keys.find(asked(uuidKey(at)))).toEqual(uuidKey(at));
    expect(spill.reads).toBeGreaterThan(0);
    expect([...keys.values()]).toEqual(Array.from({ length: 5 * 4096 + 100 }, (_, at) => uuidKey(at)));

    // A write that failed takes keys back from a spilled chunk: it holds them again first.
    keys.truncate(6_000);
    expect(keys.end).toBe(6_000);
    expect(keys.find(asked(uuidKey(6_000)))).toBeUndefined();
    expect(keys.find(asked(uuidKey(5_999)))).toEqual(uuidKey(5_999));
    for (let at = 6_000; at < 30_000; at++) keys.add(uuidKey(at));

    // The front's chunks leave, and what they spilled is released (then overwritten, in this spill).
    const swept = keys.sweep(uuidKey(12_000).expiresAt, 100_000);
    expect(swept).toBe(12_001);
    expect(spill.released).toBeGreaterThan(0);
    for (const at of [12_001, 12_288, 16_384, 20_000, 29_999]) expect(keys.find(asked(uuidKey(at)))).toEqual(uuidKey(at));
    expect(keys.find(asked(uuidKey(11_000)))).toBeUndefined();

    // Handed on (to another thread, say), every key comes back from the spill.
    const copy = IdempotencyKeys.fromSnapshot(keys.snapshot());
    expect([...copy.values()]).toEqual(Array.from({ length: 30_000 - 12_001 }, (_, at) => uuidKey(12_001 + at)));
  });
});

describe('IdempotencyKeys against a model', () => {
  // Keys packed as UUIDs (four bits a digit), lowercase hex (four bits a digit, odd and even
  // counts), six bits a character (base64url ones, every length modulo 4, UUIDs and hex
  // spelled otherwise), kept a byte a character, and kept as strings (beyond one byte a
  // character, 255 characters and more).
  const keyTexts = [
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-4fff-bfff-ffffffffffff',
    'F47AC10B-58CC-4372-A567-0E02B2C3D479',
    'f47ac10b-58cc-4372-a567-0e02b2c3d47g',
    'f47ac10b_58cc-4372-a567-0e02b2c3d479',
    'f47ac10b-58cc-4372-a567-0e02b2c3d4790',
    'f47ac10b-58cc-4372-a567-0e02b2c3d47',
    'a',
    'b_',
    'AZ9',
    '-_az',
    'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    'F47AC10B58CC4372A5670E02B2C3D479',
    'f47ac10b58cc4372a5670e02b2c3d479',
    '0',
    'abc',
    'f'.repeat(254),
    '0f1e2d3c4b5a69788796a5b4c3d2e1f0g',
    '',
    'é',
    'order 42',
    'ключ',
    '🐈',
    'x'.repeat(254),
    'y'.repeat(255),
    'z'.repeat(300),
    'ÿ'.repeat(254),
  ];
  // Pet ids and expiries that fit a chunk's columns, and some that do not.
  const petIds = [1, 4_294_967_294, 4_294_967_295, 2 ** 40 + 1, 0];
  const lifetimes = [86_400_000, 0, 4_294_967_295, 2 ** 33, 0.5, -3];
  const scopes = ['s1', 's2', 'ключ'];
  const operation = fc.oneof(
    fc.record({ add: fc.nat(keyTexts.length - 1), scope: fc.nat(scopes.length - 1), life: fc.integer({ min: 1, max: 400 }) }),
    fc.record({
      odd: fc.nat(keyTexts.length - 1),
      petId: fc.constantFrom(...petIds),
      lifetime: fc.constantFrom(...lifetimes),
      late: fc.boolean(),
    }),
    // Runs of keys alike (UUIDs, 32 hex digits as our kiosk page makes, 22-character tokens as our client makes: a chunk then keeps no
    // place or length for them) or not (texts of every length, some kept apart).
    fc.record({ addMany: fc.integer({ min: 1, max: 1_500 }), long: fc.boolean(), kind: fc.constantFrom('uuid', 'hex', 'token', 'text') }),
    fc.record({ sweep: fc.integer({ min: 1, max: 300 }), late: fc.nat(400) }),
    fc.record({ truncate: fc.nat(50) }),
  );

  it.each([
    ['in memory', undefined],
    ['spilling full chunks', 0],
    ['spilling full chunks to a spill that fails every third write', 3],
  ])(
    'Should find, sweep, forget after failed writes and give back every key as the model does, through growth of the columns, the table and the texts (%s)',
    (_, failEvery) => {
      fc.assert(
        fc.property(fc.array(operation, { minLength: 1, maxLength: 60 }), (operations) => {
          const keys = new IdempotencyKeys();
          if (failEvery !== undefined) keys.spillTo(new MemorySpill(failEvery));
          const model = new ModelKeys();
          let now = 0;
          let unique = 0;
          const addBoth = (stored: StoredIdempotencyKey) => {
            keys.add(stored);
            model.add(stored);
          };
          for (const step of operations) {
            now += 1;
            if ('add' in step) {
              addBoth({ ...stored(keyTexts[step.add]!, now, now, scopes[step.scope]), expiresAt: now + step.life });
            } else if ('odd' in step) {
              // A creation time of a fraction of a millisecond, as no clock gives but a file edited by hand may hold.
              const createdAt = step.late ? now + 0.25 : now;
              addBoth({ ...stored(keyTexts[step.odd]!, step.petId, createdAt), expiresAt: createdAt + step.lifetime });
            } else if ('addMany' in step) {
              for (let count = 0; count < step.addMany; count++) {
                const text =
                  step.kind === 'uuid'
                    ? `${(unique++).toString(16).padStart(8, '0')}-58cc-4372-a567-${count.toString(16).padStart(12, 'c')}`
                    : step.kind === 'hex'
                      ? (unique++).toString(16).padStart(32, '0')
                      : step.kind === 'token'
                        ? (unique++).toString(36).padStart(22, '_')
                        : `${step.long ? 'l'.repeat(200) : ''}${unique++}-${count % 3 === 0 ? 'ü' : 'u'}`;
                addBoth({ ...stored(text, unique, now, scopes[count % 2]), expiresAt: now + 50 + (count % 300) });
              }
            } else if ('sweep' in step) {
              expect(keys.sweep(now + step.late, step.sweep)).toBe(model.sweep(now + step.late, step.sweep));
            } else {
              const mark = Math.max(model.first, model.end - step.truncate);
              keys.truncate(mark);
              model.truncate(mark);
            }
            expect([keys.first, keys.end]).toEqual([model.first, model.end]);
            for (const scope of scopes) {
              for (const text of keyTexts) expect(keys.find({ ...stored(text, 0, now, scope) })).toEqual(model.find(scope, text, now));
            }
          }
          expect([...keys.values()]).toEqual(model.kept);
          for (const [at, kept] of model.kept.entries()) {
            expect(keys.find({ ...kept, createdAt: now })).toEqual(model.find(kept.scope, kept.key, now));
            if (at > 200) break;
          }
        }),
        { numRuns: 60 },
      );
    },
  );
});
