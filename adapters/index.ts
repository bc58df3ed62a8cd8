/**
 * @module animal-store: the package root, for any runtime. The framework-agnostic core
 * (`createPetService`, `createCatalogue`, the schemas, `AnimalStoreError`) plus the
 * in-memory storage, which needs no file system. The core itself never imports a storage;
 * this entry is where the two meet, so `import { createPetService, createMemoryStorage }
 * from 'animal-store'` is all an embedding needs.
 *
 * Other entry points: `animal-store/node` (standalone server, JSON-file storage),
 * `animal-store/express`, `animal-store/fetch`, `animal-store/client`, `animal-store/testing`.
 *
 * Running this repository's own programs (examples, tests) against the TypeScript source:
 * every entry in package.json `exports` has an `animal-store-source` condition pointing at
 * the `.ts` file, listed before `import`/`require` (which point at the compiled `dist/`). So
 *
 *     node --conditions=animal-store-source --import tsx examples/express/main.ts
 *
 * resolves `import … from 'animal-store/express'` (package self-reference) to
 * `adapters/express.ts` with no build. Without the condition, the same import needs
 * `npm run build` first. TypeScript needs nothing: with `outDir`/`rootDir` set, it maps the
 * `types` targets in dist/ back to their sources. Vitest (server-side resolution) needs
 * `ssr: { resolve: { conditions: ['animal-store-source', ...defaultServerConditions] } }`
 * (`defaultServerConditions` from 'vite'), as examples/test-app/vitest.config.ts does.
 */
export * from '../core/index.js';
export type { MemoryStorage, MemoryStorageOptions } from '../storage/createMemoryStorage.js';
export { createMemoryStorage } from '../storage/createMemoryStorage.js';
