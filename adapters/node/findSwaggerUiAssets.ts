/**
 * @module The reference page's renderer, from the optional `swagger-ui-dist` package when it
 * is installed: served by the server itself, so the page loads nothing from a CDN.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { DOCS_ASSET_NAMES, DocsAssets } from '../../core/http/docsPage.js';

/** The media type of each file the page loads. */
const TYPES: Record<(typeof DOCS_ASSET_NAMES)[number], string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

/** Finds a module's file as `require.resolve` does. */
type Resolve = (specifier: string) => string;

/**
 * Resolved from this package, as `import 'swagger-ui-dist'` here would be: where npm puts an
 * optional peer dependency the application installed.
 */
const resolveFromHere: Resolve = (specifier) => createRequire(import.meta.url).resolve(specifier);

/**
 * The renderer's files for `createPetService({ docsAssets })`, or `undefined` when
 * `swagger-ui-dist` is not installed (the page then documents the deprecation and links the
 * OpenAPI document). Only the files `DOCS_ASSET_NAMES` lists are served, whatever name is
 * asked for; each is read once, on first use, and kept.
 *
 * @param resolve How to find `swagger-ui-dist/package.json`; from this package by default.
 */
export const findSwaggerUiAssets = (resolve: Resolve = resolveFromHere): DocsAssets | undefined => {
  let folder: string;
  try {
    folder = path.dirname(resolve('swagger-ui-dist/package.json'));
  } catch {
    return undefined;
  }
  const files = new Map<string, Promise<{ body: Uint8Array; type: string }>>();
  return async (name) => {
    if (!Object.hasOwn(TYPES, name)) return undefined;
    let file = files.get(name);
    if (file === undefined) {
      file = readFile(path.join(folder, name)).then((body) => ({ body, type: TYPES[name as keyof typeof TYPES] }));
      // A failed read is tried again next time rather than kept.
      file.catch(() => files.delete(name));
      files.set(name, file);
    }
    return file;
  };
};
