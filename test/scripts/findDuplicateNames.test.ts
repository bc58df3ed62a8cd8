/** @module One name per thing: no top-level name is defined in two files of core/, storage/ or adapters/. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDuplicateNames, KNOWN_DUPLICATES, topLevelNames } from '../../scripts/findDuplicateNames.js';

const ROOT = path.join(import.meta.dirname, '../..');

describe('top-level names', () => {
  it('finds what a file defines at its top level, and not what it imports or holds inside', () => {
    const text = [
      "import { sleep } from './sleep.js';",
      'export const a = 1, b = 2;',
      'const { c } = { c: 3 };',
      'function d() { const inner = 1; return inner; }',
      'export class E {}',
      'interface F {}',
      'export type G = string;',
      'enum H { X }',
    ].join('\n');
    expect(topLevelNames('x.ts', text).sort()).toEqual(['E', 'F', 'G', 'H', 'a', 'b', 'd']);
  });

  it('are each defined in one file of core/, storage/ and adapters/', () => {
    const duplicates = [...findDuplicateNames(ROOT)].filter(([name]) => !(name in KNOWN_DUPLICATES));
    expect(duplicates.map(([name, files]) => `${name}: ${files.join(', ')}`)).toEqual([]);
  });

  it('knows of no duplicate that is gone', () => {
    // A name left for later must still be a duplicate, so the list shrinks as they are renamed.
    const found = findDuplicateNames(ROOT);
    for (const name of Object.keys(KNOWN_DUPLICATES)) expect(found.has(name), `${name} is no longer defined twice`).toBe(true);
  });
});
