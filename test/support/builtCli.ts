/**
 * @module Runs the built `animal-store` bin (`dist/bin/animal-store.js`, bundled), as users run it, building
 * it first when it is missing or older than the sources.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type NodeProcess, REPO_ROOT, spawnProcess, waitForOutput } from './nodeProcess.js';
import type { CliOptions } from './startCli.js';

/** The built bin. */
export const BUILT_CLI = path.join(REPO_ROOT, 'dist/bin/animal-store.js');

/** The newest modification time among the TypeScript sources the bin is built from. */
const newestSource = (): number => {
  let newest = 0;
  const visit = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const where = path.join(folder, entry.name);
      if (entry.isDirectory()) visit(where);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(where).mtimeMs);
    }
  };
  for (const folder of ['adapters', 'core', 'storage']) visit(path.join(REPO_ROOT, folder));
  return newest;
};

/**
 * Builds the package (`npm run build`) unless `dist/bin/animal-store.js` is newer than every
 * source; call it in a `beforeAll` with a long timeout (a build takes half a minute).
 */
export const ensureBuilt = (): void => {
  const built = fs.statSync(BUILT_CLI, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (built > newestSource()) return;
  execFileSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'pipe' });
};

/** Runs `node dist/bin/animal-store.js …args`, with the same clean environment as `runCli`; does not wait. */
export const runBuiltCli = (args: string[], { env = {}, cwd = REPO_ROOT }: CliOptions = {}): NodeProcess =>
  spawnProcess(process.execPath, [BUILT_CLI, ...args], {
    cwd,
    env: { ANIMAL_STORE_API_KEYS: '', PORT: '', DATABASE_URL: '', ANIMAL_STORE_CURSOR_SECRET: '', ...env },
  });

/** Starts the built bin and resolves, with its base URL, once it listens (text or JSON log lines). */
export const startBuiltCli = async (args: string[], options?: CliOptions) => {
  const cli = runBuiltCli(args, options);
  return { ...cli, url: (await waitForOutput(cli, /listening on (http:\/\/[^\s"]+)/))[1]! };
};
