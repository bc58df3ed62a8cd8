import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { type PetFileData, PetFileJson } from '../../../storage/jsonFile/format/PetFileData.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';

const animals = (from: number, count: number, name = 'Animal'): Pet[] =>
  Array.from({ length: count }, (_, offset) => ({
    id: from + offset,
    name: `${name} ${from + offset} "quoted" \\ é`,
    categoryId: 1 + (offset % 5),
    status: 'pending',
  }));

const text = (serializer: PetFileSerializer, data: PetFileData) => Buffer.concat(serializer.serialize(data)).toString('utf8');

describe('PetFileSerializer', () => {
  it('Should write the documented format: one animal per line, parseable by the PetFileJson schema', () => {
    const data: PetFileData = { format: 2, nextId: 3, pets: animals(1, 2), idempotencyKeys: [] };
    const written = text(new PetFileSerializer(), data);
    expect(written.split('\n')).toHaveLength(5);
    expect(written.startsWith('{"format":2,"nextId":3,"pets":[\n{"id":1,')).toBe(true);
    expect(v.parse(PetFileJson, JSON.parse(written))).toEqual(data);
    const empty: PetFileData = { format: 2, nextId: 1, pets: [], idempotencyKeys: [] };
    expect(JSON.parse(text(new PetFileSerializer(), empty))).toEqual({ format: 2, nextId: 1, pets: [], idempotencyKeys: [] });
  });

  it('Should write the same as a fresh serializer after growing, and after a tail was cut (and forgotten) and replaced', () => {
    const serializer = new PetFileSerializer();
    const pets = animals(1, 10_000);
    const data: PetFileData = { format: 2, nextId: 10_001, pets, idempotencyKeys: [] };
    text(serializer, data);
    // Grow past a chunk boundary, then cut back into the cached chunks and write other animals there.
    pets.push(...animals(10_001, 2_000));
    data.nextId = 12_001;
    expect(text(serializer, data)).toBe(text(new PetFileSerializer(), data));
    pets.length = 7_000;
    serializer.forgetFrom(7_000);
    pets.push(...animals(7_001, 6_000, 'Replacement'));
    data.nextId = 13_001;
    const reused = text(serializer, data);
    expect(reused).toBe(text(new PetFileSerializer(), data));
    expect(JSON.parse(reused).pets[8_191].name).toMatch(/^Replacement 8192/);
  });

  it('Should write the same as a fresh serializer after writes that each add a few animals, and after a cut within them', () => {
    const serializer = new PetFileSerializer();
    const pets = animals(1, 4_000);
    const data: PetFileData = { format: 2, nextId: 4_001, pets, idempotencyKeys: [] };
    // Many small writes, across a chunk boundary and past the number of pieces kept apart.
    for (let write = 0; write < 150; write++) {
      pets.push(...animals(pets.length + 1, 1 + (write % 3)));
      data.nextId = pets.length + 1;
      expect(text(serializer, data)).toBe(text(new PetFileSerializer(), data));
    }
    // A failed write cuts back into the last pieces; the animals after the cut are others.
    const kept = pets.length - 2;
    pets.length = kept;
    serializer.forgetFrom(kept);
    pets.push(...animals(kept + 1, 3, 'After the cut'));
    data.nextId = pets.length + 1;
    const written = text(serializer, data);
    expect(written).toBe(text(new PetFileSerializer(), data));
    expect(JSON.parse(written).pets.at(-1).name).toMatch(/^After the cut/);
    // A cut at the start of the tail, then one far into the cached chunks.
    for (const cut of [4_096, 100]) {
      pets.length = cut;
      serializer.forgetFrom(cut);
      pets.push(...animals(cut + 1, 5, `Cut at ${cut}`));
      data.nextId = pets.length + 1;
      expect(text(serializer, data)).toBe(text(new PetFileSerializer(), data));
    }
  });
});
