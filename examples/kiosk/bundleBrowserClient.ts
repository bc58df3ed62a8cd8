/**
 * @module Bundles `animal-store/client` into one browser ES module, in memory, so the kiosk's
 * plain scripts can import the package's typed client without a build step of their own.
 */

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
 * example's own imports are. Throws esbuild's error when the package cannot be resolved, and
 * says what to install when esbuild itself is missing: it is this example's tool, not a
 * dependency of animal-store, so a project that copies the example installs it.
 */
export const bundleBrowserClient = async (): Promise<string> => {
  const { build } = await import('esbuild').catch((error: unknown) => {
    throw new Error('esbuild is not installed; the kiosk bundles the client with it: npm install --save-dev esbuild', { cause: error });
  });
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
