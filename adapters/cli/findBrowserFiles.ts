/** @module Where the browser's built files are: dist/browser/, made by `npm run build` (scripts/buildBrowserFiles.ts). */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the built browser files: beside the compiled CLI in an installed package
 * (dist/adapters/cli/ → dist/browser/), or the repository's dist/browser/ when the CLI runs
 * from its TypeScript sources. Throws, saying how to build them, when neither exists.
 */
export const findBrowserFiles = (): string => {
  const candidates = [new URL('../../browser/', import.meta.url), new URL('../../dist/browser/', import.meta.url)].map((url) =>
    fileURLToPath(url),
  );
  const found = candidates.find((folder) => existsSync(`${folder}animal-store-worker.js`));
  if (found === undefined) {
    throw new Error(
      `the browser files are not built (looked in ${candidates.join(' and ')}): run npm run build in the animal-store package`,
    );
  }
  return found;
};
