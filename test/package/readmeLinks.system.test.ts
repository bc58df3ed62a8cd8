/**
 * @module The README's and docs/' local links lead to files `npm pack` really publishes: the
 * same check as readmeLinks.test.ts, against npm's own file list rather than a reading of
 * package.json's `files`.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { localTarget, markdownFiles, targetsOf } from './markdownLinks.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

it('has every local link and image target of README.md and docs/ in the file list npm publishes', async () => {
  // --ignore-scripts skips the build, which no page links into.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: repo,
    timeout: 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ files: Array<{ path: string }> }>;
  const packed = report!.files.map((file) => file.path);
  const missing: string[] = [];
  for (const page of markdownFiles(repo)) {
    expect(packed).toContain(page);
    for (const target of targetsOf(await readFile(join(repo, page), 'utf8'))) {
      const local = localTarget(page, target);
      if (local && !packed.some((file) => file === local.path || file.startsWith(`${local.path}/`))) missing.push(`${page}: ${target}`);
    }
  }
  expect(missing).toEqual([]);
});
