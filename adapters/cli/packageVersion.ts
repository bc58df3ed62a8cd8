/** @module The version of the installed animal-store, for `--version`. */
import { readFileSync } from 'node:fs';

/**
 * Reads the version from the package's own package.json: two folders up from the source
 * (adapters/cli/, run by tsx) and from the bundled bin (dist/bin/), three from the compiled
 * command (dist/adapters/cli/); one from `npm start`'s bin, beside which it is copied.
 */
export const packageVersion = (): string => {
  for (const relative of ['../../package.json', '../../../package.json', '../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'animal-store' && manifest.version) return manifest.version;
    } catch {
      // Not there: try the next place.
    }
  }
  return 'unknown';
};
