/**
 * @module The command `npm start` runs, built as the package publishes it. tsc compiles
 * core/, adapters/ and storage/ with the build's own config (tsconfig.build.json, whose
 * JavaScript is what dist/ holds), without the type check and the declarations, which change
 * nothing it emits; the bin is bundled from that as `npx animal-store` runs it from dist/bin/
 * (scripts/bundleBin.mjs), and the browser's files are built beside it as in dist/browser/:
 * a few seconds, once per version of the sources. The built copies live in
 * node_modules/.cache/animal-store/start/, one folder per version of the sources, written
 * under a temporary name and renamed into place, so that starts at the same moment (and
 * `npm pack`'s build of dist/) never read a half-written file.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleBin } from './bundleBin.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, 'node_modules', '.cache', 'animal-store', 'start');
/** What the build reads besides the sources: a change to any of them is a new version. */
const INPUTS = [
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'node_modules/typescript/package.json',
  'node_modules/esbuild/package.json',
  'scripts/bundleBin.mjs',
  'scripts/buildBrowserFiles.ts',
  'scripts/browserKioskPage.ts',
];
/** The kiosk web app's own files besides the TypeScript (`--browser-kiosk` serves them). */
const BROWSER_FOLDERS = ['adapters/browser/kiosk/app', 'examples/kiosk'];
/** Compiled versions kept beside the newest (a server started from one may still be running). */
const KEPT_VERSIONS = 3;

/** The TypeScript files under `folder` (every file with `all`), relative to the root, in a stable order. */
const sourcesUnder = (folder, all = false) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && (all || entry.name.endsWith('.ts')))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name).slice(root.length))
    .sort();

/** A digest of every file the build reads: the name of this version's compiled copy. */
const versionOfSources = () => {
  const hash = createHash('sha256');
  const sources = [
    ...['core', 'adapters', 'storage'].map((folder) => sourcesUnder(folder)),
    ...BROWSER_FOLDERS.map((folder) => sourcesUnder(folder, true)),
  ];
  for (const file of [...INPUTS, ...sources.flat()]) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
};

/** Compiles the sources into `folder`, bundles the bin and builds the browser's files there; throws with what went wrong when they do not compile (tsc has said why on stderr). */
const compileInto = async (folder) => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', folder, '--noCheck', '--declaration', 'false'];
  const { status, error } = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (error !== undefined || status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`npm start could not compile the sources (${error?.message ?? `tsc exited with ${status}`})`);
  }
  // Beside the compiled command as beside dist/: its version, and the module type.
  copyFileSync(join(root, 'package.json'), join(folder, 'package.json'));
  try {
    await bundleBin(folder);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`npm start could not bundle the bin (${error.message})`);
  }
  // The browser's files beside the bin, as dist/browser/ is beside dist/bin/ (`--browser-kiosk`, `init-worker`).
  const browser = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'buildBrowserFiles.ts'), join(folder, 'browser')], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (browser.error !== undefined || browser.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`npm start could not build the browser files (${browser.error?.message ?? `exited with ${browser.status}`})`);
  }
};

/** A compile left unfinished this long ago was cut off (its process killed). */
const ABANDONED_AFTER_MS = 10 * 60_000;

/** Removes all but the newest compiled versions, and compiles cut off long ago. */
const forgetOldVersions = () => {
  const entries = readdirSync(cache).map((name) => ({ name, at: statSync(join(cache, name)).mtimeMs }));
  const versions = entries.filter(({ name }) => !name.endsWith('.tmp')).sort((a, b) => b.at - a.at);
  const abandoned = entries.filter(({ name, at }) => name.endsWith('.tmp') && Date.now() - at > ABANDONED_AFTER_MS);
  for (const { name } of [...versions.slice(KEPT_VERSIONS), ...abandoned]) rmSync(join(cache, name), { recursive: true, force: true });
};

/**
 * The bin for the sources as they are now, compiled and bundled first when it is not there yet.
 *
 * @returns The bin's path (`bin/animal-store.js` in the version's folder, as in dist/).
 */
export const compiledForStart = async () => {
  const version = join(cache, versionOfSources());
  const bin = join(version, 'bin', 'animal-store.js');
  if (existsSync(bin)) return bin;
  mkdirSync(cache, { recursive: true });
  process.stderr.write('animal-store: compiling the sources for npm start (once per change, a few seconds)\n');
  const building = `${version}.${process.pid}.tmp`;
  await compileInto(building);
  try {
    renameSync(building, version);
  } catch {
    // Another start compiled the same version first: its copy is the same.
    rmSync(building, { recursive: true, force: true });
  }
  forgetOldVersions();
  return bin;
};
