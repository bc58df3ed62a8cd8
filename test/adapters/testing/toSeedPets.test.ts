/** @module Seed data in the shapes users bring: arrays, json-server's db.json, data files. */
import { describe, expect, it } from 'vitest';
import { toSeedPets } from '../../../adapters/testing/toSeedPets.js';

describe('seed data', () => {
  it('reads json-server\'s db.json: the animals under "pets", other collections ignored', () => {
    const db = { posts: [{ id: 1 }], pets: [{ id: 2, name: 'Rex', categoryId: 1, status: 'sold' }] };
    expect(toSeedPets(db)).toEqual([{ id: 2, name: 'Rex', categoryId: 1, status: 'sold' }]);
  });

  it('gives an animal with an id but no status the status available, as a create would', () => {
    expect(toSeedPets({ pets: [{ id: 7, name: 'Rex', categoryId: 1 }] })).toEqual([
      { id: 7, name: 'Rex', categoryId: 1, status: 'available' },
    ]);
  });

  it('reads a plain array of new animals, giving ids 1, 2, 3', () => {
    expect(
      toSeedPets([
        { name: 'Rex', categoryId: 1 },
        { name: 'Tom', categoryId: 2 },
      ]).map((pet) => pet.id),
    ).toEqual([1, 2]);
  });

  it('refuses an object that is neither, saying which shapes it takes', () => {
    expect(() => toSeedPets({ animals: [] }, 'The seed file x.json')).toThrow(
      /^The seed file x\.json is not valid: seed must be an array of animals, json-server's \{"pets": \[…\]\}, or a data file .*; it has neither "pets" nor "format"\.$/,
    );
  });

  it('names the animal of a db.json that is wrong, and where', () => {
    expect(() => toSeedPets({ pets: [{ name: '', categoryId: 1 }] }, 'The seed file db.json')).toThrow(
      /^The seed file db\.json \("pets"\) at \[0\]/,
    );
  });
});
