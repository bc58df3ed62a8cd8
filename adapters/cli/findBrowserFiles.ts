/** @module Where the browser's built files are: dist/browser/, made by `npm run build` (scripts/buildBrowserFiles.ts). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the built browser files, dist/browser/: beside the bundled bin (dist/bin/),
 * beside the compiled CLI (dist/adapters/cli/), or the repository's when the CLI runs from its
 * TypeScript sources (adapters/cli/). Throws, saying how to build them, when none exists.
 */
export const findBrowserFiles = (): string => {
  const candidates = ['../browser/', '../../browser/', '../../dist/browser/'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((folder) => existsSync(`${folder}animal-store-worker.js`));
  if (found === undefined) {
    throw new Error(
      `the browser files are not built (looked in ${candidates.join(' and ')}): run npm run build in the animal-store package`,
    );
  }
  return found;
};
