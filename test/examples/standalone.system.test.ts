/** @module The standalone example serves over HTTP from a JSON file that survives a restart. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/tempFolder.js';
import { killLeftoverExamples, runExample } from './runExample.js';

afterEach(killLeftoverExamples);

describe('examples/standalone', () => {
  it('creates and pages animals over HTTP, then finds them in the file after a restart', async () => {
    const folder = tempFolder();
    const { code, stdout, stderr } = await runExample('examples/standalone/main.ts', { args: [folder] });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(stdout).toContain('created #1 Biscuit (available) at /v1/pets/1');
    expect(stdout).toContain('page: #1 Biscuit, #2 Nimbus');
    expect(stdout).toContain('page: #3 Pepper');
    expect(stdout).toContain('after the restart, created #4 Mochi');
    expect(stdout).toContain('the file holds 4 animals');
    const file = await readFile(join(folder, 'animals.json'), 'utf8');
    for (const name of ['Biscuit', 'Nimbus', 'Pepper', 'Mochi']) expect(file).toContain(name);
  });
});
