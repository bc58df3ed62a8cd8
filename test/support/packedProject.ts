/**
 * @module A new project that installed the packed package, as a user's does: `npm pack` of
 * this repository (prepack builds dist/ first), then `npm install` of the tarball and the
 * tools a test names into an empty `"type": "module"` project in a temp folder.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './nodeProcess.js';
import { tempFolder } from './tempFolder.js';

const run = promisify(execFile);

/**
 * Packs the package and installs it, with `dependencies` (such as `tsx@^4`), into a new
 * project; resolves with the project's folder, removed when the test file ends. Call it in a
 * `beforeAll` with a few minutes' timeout.
 */
export const createPackedProject = async (name: string, dependencies: readonly string[]): Promise<string> => {
  const work = tempFolder({ until: 'file' });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: REPO_ROOT,
    timeout: 120_000,
    maxBuffer: 16 * 2 ** 20,
  });
  const [report] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string }>;
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', join(work, report!.filename), ...dependencies], {
    cwd: project,
    timeout: 120_000,
  });
  return project;
};
