import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findMissingTestTools, installCommand, type ToolPlaces } from '../../scripts/findMissingTestTools.js';
import { tempFolder } from '../support/tempFolder.js';

/** An executable file at `file`, with its folders. */
const program = (file: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
};

/** A fake machine with every tool in place. */
const fullMachine = (): ToolPlaces => {
  const root = tempFolder();
  program(path.join(root, 'usr/bin/chromium'));
  program(path.join(root, 'usr/bin/wrk'));
  program(path.join(root, 'usr/lib/postgresql/15/bin/initdb'));
  return {
    chromium: path.join(root, 'usr/bin/chromium'),
    path: `${path.join(root, 'nowhere')}:${path.join(root, 'usr/bin')}`,
    postgresRoot: path.join(root, 'usr/lib/postgresql'),
  };
};

describe('the test pre-step (npm run test:tools)', () => {
  it('Should find nothing missing when Chromium, wrk and a PostgreSQL server are in place', () => {
    expect(findMissingTestTools(fullMachine())).toEqual([]);
  });

  it('Should name every missing tool with the Debian package that brings it, on a bare machine', () => {
    const bare = tempFolder();
    const missing = findMissingTestTools({
      chromium: path.join(bare, 'chromium'),
      path: bare,
      postgresRoot: path.join(bare, 'postgresql'),
    });
    expect(missing.map((tool) => tool.debianPackage)).toEqual(['chromium', 'wrk', 'postgresql']);
    expect(installCommand(missing, true)).toBe('apt-get install -y --no-install-recommends chromium wrk postgresql');
    expect(installCommand(missing, false)).toBe('sudo apt-get install -y --no-install-recommends chromium wrk postgresql');
  });

  it('Should not count a file that cannot be run, nor a PostgreSQL folder without initdb', () => {
    const places = fullMachine();
    chmodSync(places.chromium, 0o644);
    mkdirSync(path.join(places.postgresRoot, '16'));
    chmodSync(path.join(places.postgresRoot, '15/bin/initdb'), 0o644);
    expect(findMissingTestTools(places).map((tool) => tool.name)).toEqual(['Chromium', 'PostgreSQL']);
  });

  it('Should not ask for a PostgreSQL server when the tests are given a database', () => {
    const places = { ...fullMachine(), postgresRoot: '/nowhere', databaseUrl: 'postgres://127.0.0.1/tests' };
    expect(findMissingTestTools(places)).toEqual([]);
  });
});
