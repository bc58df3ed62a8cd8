/** @module Test helper: what a data file holds on disk, its document and its journal's whole lines together, read independently of the storage's code. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** A data file's content as JSON: the document's fields, with the journal's animals and keys after its own. */
export interface OnDisk {
  format: number;
  nextId: number;
  pets: unknown[];
  idempotencyKeys: unknown[];
  sync?: unknown;
}

/** The journal's whole lines (`<16 hex of SHA-256> <json>`) that check, as parsed JSON. */
export const journalLines = (file: string): OnDisk[] => {
  if (!fs.existsSync(`${file}.journal`)) return [];
  const lines: OnDisk[] = [];
  for (const line of fs.readFileSync(`${file}.journal`, 'utf8').split('\n')) {
    const change = line.slice(17);
    if (line[16] !== ' ' || createHash('sha256').update(change).digest('hex').slice(0, 16) !== line.slice(0, 16)) break;
    lines.push(JSON.parse(change) as OnDisk);
  }
  return lines;
};

/**
 * The document with the journal's changes after it: what a server opening the file (or
 * after a crash) serves. As documented, an animal (or key) the document already holds is
 * not added again: a crash between a whole write and emptying the journal leaves both.
 */
export const readDataFile = (file: string): OnDisk => {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as OnDisk;
  const merged: OnDisk = { ...document, pets: [...document.pets], idempotencyKeys: [...(document.idempotencyKeys ?? [])] };
  const ids = new Set(merged.pets.map((pet) => (pet as { id: number }).id));
  const keyOf = (stored: unknown) => JSON.stringify(stored);
  const keys = new Set(merged.idempotencyKeys.map(keyOf));
  for (const change of journalLines(file)) {
    merged.format = change.format;
    merged.nextId = Math.max(merged.nextId, change.nextId);
    for (const pet of change.pets) {
      const { id } = pet as { id: number };
      if (!ids.has(id)) merged.pets.push(pet);
      ids.add(id);
    }
    for (const stored of change.idempotencyKeys) {
      if (!keys.has(keyOf(stored))) merged.idempotencyKeys.push(stored);
      keys.add(keyOf(stored));
    }
    if (change.sync !== undefined) merged.sync = change.sync;
  }
  return merged;
};
