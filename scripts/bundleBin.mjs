/**
 * @module The `animal-store` bin, bundled with esbuild from the compiled command: the command
 * and what it imports in one file (`animal-store.js`), and the keys' worker beside it
 * (`keysWorker.js`, which `readKeysInWorker` starts from the bin's own folder). Node loads
 * one file where it loaded about 340 (our modules and our dependencies'): about 0.3 s of
 * every start on a slow machine, and of every `animal-store` command. The library
 * (`import 'animal-store'`) stays the compiled modules, which share their dependencies with
 * the program that imports them.
 *
 * Left out of the bundle, loaded from node_modules when used: the optional peers (pg,
 * prom-client, swagger-ui-dist, express), and fs-native-extensions, whose native addon is
 * found from its own folder.
 *
 * `npm run build` bundles dist/ into dist/bin/ (`node scripts/bundleBin.mjs`); `npm start`
 * bundles its own compiled copy (see compiledForStart), and the bench its own
 * (test/bench/servers.ts).
 */
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** The package's dependencies, for a compiled copy outside the package too (a test's). */
const dependencies = fileURLToPath(new URL('../node_modules', import.meta.url));

/**
 * Bundles the command compiled into `compiled` (a folder laid out as dist/) into `compiled`/bin/.
 *
 * @returns The bin's path.
 */
export const bundleBin = async (compiled) => {
  const out = join(compiled, 'bin');
  await build({
    entryPoints: {
      'animal-store': join(compiled, 'adapters', 'cli.js'),
      keysWorker: join(compiled, 'storage', 'jsonFile', 'read', 'keysWorker.js'),
    },
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    nodePaths: [dependencies],
    external: ['pg', 'prom-client', 'swagger-ui-dist', 'express', 'fs-native-extensions'],
    // The dependencies written as CommonJS call `require`, which an ES module lacks.
    banner: {
      js: "import { createRequire as createRequireInBundle } from 'node:module'; const require = createRequireInBundle(import.meta.url);",
    },
    logLevel: 'warning',
  });
  return join(out, 'animal-store.js');
};

// `node scripts/bundleBin.mjs [FOLDER]`: bundles FOLDER (laid out as dist/; dist/ itself by default).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await bundleBin(process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('../dist', import.meta.url)));
}
