/**
 * @module The CommonJS face of the package, written into dist/ after `tsc` has compiled the
 * ES modules: for every `require` target in package.json `exports`, a `.cjs` file that
 * `require`s the compiled ES module beside it (Node 20.19+ and 22.12+ load ES modules by
 * `require`), and beside every declaration file a `.d.cts` copy, so that TypeScript sees
 * CommonJS types where a `require` resolves (module node16 and nodenext alike).
 *
 * Why not a second, CommonJS build: two builds are two copies of every module, so a program
 * that reaches the package by both `require` and `import` would hold two `AnimalStoreError`
 * classes (and `instanceof` would fail across them) and two of any module state. Here there is
 * one implementation, loaded once, whichever way it is reached.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Target = { types: string; default: string };
type Manifest = { exports: Record<string, string | Record<string, string | Target>> };

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

/** Relative module specifiers ending in `.js`, in `from '…'` and `import('…')`. */
const RELATIVE_JS = /(from\s+|import\()(['"])(\.{1,2}\/[^'"]*?)\.js\2/g;

/**
 * A CommonJS module whose exports are the ES module's, read through getters (live, as
 * `import` sees them). Not `module.exports = require(…)`: type checkers read that as
 * `export =`, which would contradict the `export default` that `animal-store/fetch` declares.
 */
const commonJsEntry = (esm: string) =>
  [
    "'use strict';",
    '// The package is ES modules, which Node 20.19+ and 22.12+ load by require(): one copy, shared with import.',
    `const esm = require('${esm}');`,
    'for (const name of Object.keys(esm)) Object.defineProperty(exports, name, { enumerable: true, get: () => esm[name] });',
    '',
  ].join('\n');

const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as Manifest;
for (const [name, entry] of Object.entries(manifest.exports)) {
  if (typeof entry === 'string') continue;
  const required = entry.require as Target | undefined;
  const imported = entry.import as Target | undefined;
  if (!required || !imported) throw new Error(`package.json exports["${name}"] needs both "import" and "require"`);
  if (!required.default.endsWith('.cjs')) throw new Error(`exports["${name}"].require.default must be a .cjs file beside the ES module`);
  const cjs = join(root, required.default);
  const esm = join(root, imported.default);
  if (dirname(cjs) !== dirname(esm)) throw new Error(`exports["${name}"]: the .cjs file must sit beside ${imported.default}`);
  await writeFile(cjs, commonJsEntry(`./${basename(esm)}`));
}

/**
 * A type-only import of an ES-module-only package (lowdb) from a CommonJS declaration must
 * say it resolves as an import (TS1541); the ES module declarations need nothing.
 */
const ESM_ONLY_TYPE_IMPORT = /^(import type \{[^}]*\} from '(?:lowdb)');$/gm;

for (const file of await readdir(dist, { recursive: true })) {
  if (!file.endsWith('.d.ts')) continue;
  const source = await readFile(join(dist, file), 'utf8');
  const commonJs = source.replace(RELATIVE_JS, '$1$2$3.cjs$2').replace(ESM_ONLY_TYPE_IMPORT, "$1 with { 'resolution-mode': 'import' };");
  await writeFile(join(dist, file.replace(/\.d\.ts$/, '.d.cts')), commonJs);
}
