/**
 * @module Every ANIMAL_STORE_* variable the code reads is named in `--help` and in
 * docs/cli.md beside its flag. The list comes from the sources, so a variable added to the
 * code and left out of either fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../../adapters/cli/parseCommandLine.js';
import { addServeCommand } from '../../../adapters/cli/serveCommand.js';

const ROOT = join(import.meta.dirname, '../../..');

/** The TypeScript sources of the package: what runs when a user runs it. */
const sources = (folder: string): string[] =>
  readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROOT, folder, file));

/** Every `ANIMAL_STORE_…` name in core/, storage/ and adapters/ (not `ERR_ANIMAL_STORE_…`, an error code). */
const VARIABLES = [
  ...new Set(
    ['core', 'storage', 'adapters']
      .flatMap(sources)
      .flatMap((file) => readFileSync(file, 'utf8').match(/\bANIMAL_STORE_[A-Z0-9_]+/g) ?? []),
  ),
].sort();

/** The serve options commander reads from a variable, by variable: their long flag. */
const flagOfVariable = new Map(
  addServeCommand(new Command('animal-store'))
    .options.filter((option) => option.envVar !== undefined)
    .map((option) => [option.envVar!, option.long!]),
);

/** `--help`'s entries: each flag's term and description as one line (commander wraps them over several). */
const helpEntries = (): string[] => {
  const request = parseCommandLine(['--help'], {});
  if (request.kind !== 'print') throw new Error('--help printed nothing');
  const entries: string[] = [];
  for (const line of request.text.split('\n')) {
    if (/^ {2}-/.test(line)) entries.push(line.trim());
    else if (/^ {6,}\S/.test(line) && entries.length > 0) entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries;
};

/** docs/cli.md's table rows. */
const docRows = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('| `'));

describe('the ANIMAL_STORE_* variables', () => {
  it('are found in the sources', () => {
    // The eight of the fourth release at least; a new one is checked below like the others.
    expect(VARIABLES).toEqual(expect.arrayContaining(['ANIMAL_STORE_API_KEYS', 'ANIMAL_STORE_SYNC_WITH', 'ANIMAL_STORE_MEMORY_LIMIT']));
    expect(VARIABLES.length).toBeGreaterThanOrEqual(8);
  });

  it.each(VARIABLES)('%s is in --help beside its flag', (name) => {
    const entries = helpEntries();
    const flag = flagOfVariable.get(name);
    const beside = entries.filter((entry) => entry.includes(name));
    expect(beside, `no flag of --help names ${name}`).not.toEqual([]);
    if (flag !== undefined) expect(beside.some((entry) => entry.split(/[ ,]/).includes(flag))).toBe(true);
  });

  it.each(VARIABLES)('%s is in docs/cli.md beside its flag', (name) => {
    const rows = docRows.filter((row) => row.includes(`\`${name}`));
    expect(rows, `no row of docs/cli.md names ${name}`).toHaveLength(1);
    const [flagCell] = rows[0]!.split('|').slice(1, 2);
    expect(flagCell).toMatch(/`--[a-z-]+/);
    const flag = flagOfVariable.get(name);
    if (flag !== undefined) expect(flagCell).toContain(`\`${flag} `);
  });
});
