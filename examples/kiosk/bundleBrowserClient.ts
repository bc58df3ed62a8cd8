/**
 * @module Bundles `animal-store/client` into one browser ES module, in memory, so the kiosk's
 * plain scripts can import the package's typed client without a build step of their own.
 */
import { build } from 'esbuild';

/**
 * The custom export conditions this Node process resolves packages with (`--conditions`,
 * `-C`, also from NODE_OPTIONS). Run from this repository with
 * `--conditions=animal-store-source`, `animal-store/client` means the TypeScript sources;
 * in an installed package that condition's files do not exist, so it is only passed on when
 * the process itself runs with it.
 */
const processConditions = (): string[] => {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/).filter((arg) => arg !== '')];
  const conditions: string[] = [];
  args.forEach((arg, index) => {
    if (arg.startsWith('--conditions=')) conditions.push(arg.slice('--conditions='.length));
    else if ((arg === '--conditions' || arg === '-C') && args[index + 1] !== undefined) conditions.push(args[index + 1]!);
  });
  return conditions;
};

/**
 * The text of one ES module for browsers exporting what `animal-store/client` exports
 * (`createClient`, `isAnimalStoreClientError`, …), resolved from this folder as the
 * example's own imports are. Throws esbuild's error when the package cannot be resolved.
 */
export const bundleBrowserClient = async (): Promise<string> => {
  const conditions = processConditions();
  const result = await build({
    stdin: {
      contents: "export * from 'animal-store/client';",
      resolveDir: import.meta.dirname,
      sourcefile: 'animal-store-client.js',
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    // Without custom conditions esbuild keeps its defaults (browser, import, module, default).
    ...(conditions.length > 0 ? { conditions } : {}),
  });
  return result.outputFiles[0]!.text;
};
