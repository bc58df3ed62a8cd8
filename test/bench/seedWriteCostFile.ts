/** @module The data files the write-cost and start benches open: animals, and keys live for a day. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { PetFileSerializer } from '../../storage/jsonFile/write/PetFileSerializer.js';

/**
 * How a seeded file is spaced: as the server writes it (an animal and a key a line), or as
 * `JSON.stringify` writes the same document, on one line or indented by two spaces, or on
 * one line with every object's fields sorted by name, as `jq -S -c`, Go's encoder of a map
 * or Python's `sort_keys` write them (the keys' list then before the animals').
 */
export type SeedSpacing = 'server' | 'compact' | 'indented' | 'sorted';

/** `value` with every object's fields sorted by name, as `jq -S` sorts them. */
const sortedFields = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortedFields);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, field]) => [name, sortedFields(field)]),
  );
};

/** The server's text of a data file laid out as `spacing` says. */
const laidOut = (text: Buffer, spacing: SeedSpacing): string | Buffer => {
  if (spacing === 'server') return text;
  const data: unknown = JSON.parse(text.toString());
  if (spacing === 'sorted') return JSON.stringify(sortedFields(data));
  return JSON.stringify(data, null, spacing === 'indented' ? 2 : undefined);
};

/**
 * A data file of `animals` animals and `keys` Idempotency-Keys live for a day, each key as
 * the service stores one: a UUID's text, and a payload digest of 32 base64url characters.
 * (A key unlike those is kept apart, at several times the memory and time: see
 * IdempotencyKeys. Seeded so, the benches measured that path instead of the usual one.)
 */
export const seedWriteCostFile = (file: string, animals: number, keys: number, spacing: SeedSpacing = 'server'): void => {
  const now = Date.now();
  const pets: Pet[] = Array.from({ length: animals }, (_, at) => ({
    id: at + 1,
    name: `Animal number ${at + 1}`,
    categoryId: 1 + (at % 50),
    status: 'available',
  }));
  const idempotencyKeys: StoredIdempotencyKey[] = Array.from({ length: keys }, (_, at) => ({
    scope: 'c0ffee'.repeat(11).slice(0, 64),
    key: `5f1c2a9e-0b7d-4c1e-9a2b-${at.toString(16).padStart(12, '0')}`,
    fingerprint: createHash('sha256').update(`payload ${at}`).digest().subarray(0, 8).toString('base64url'),
    petId: (at % Math.max(1, animals)) + 1,
    createdAt: now - 1_000,
    expiresAt: now + 86_400_000,
  }));
  const text = Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: animals + 1, pets, idempotencyKeys }));
  fs.writeFileSync(file, laidOut(text, spacing));
};
