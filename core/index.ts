/**
 * @module animal-store: the framework-agnostic core. A Web Request goes in, a Response
 * comes out; storage, keys, base path and clock are passed in.
 */

export type { AnimalStoreErrorOptions } from './AnimalStoreError.js';
export { AnimalStoreError, isAnimalStoreError } from './AnimalStoreError.js';
export type {
  AccessLogEntry,
  AnimalStore,
  AnimalStoreLogger,
  AnimalStoreOptions,
  DeprecatedUse,
  RequestContext,
} from './createAnimalStore.js';
export { createAnimalStore } from './createAnimalStore.js';
export type { Catalogue, CatalogueOptions, PetPage } from './createCatalogue.js';
export { createCatalogue, DEFAULT_CURSOR_SECRET } from './createCatalogue.js';
export type { Sha256 } from './digest.js';
export type { CorsOptions } from './http/cors.js';
export { createOpenApiDocument, INTERFACE_VERSION } from './http/openApiDocument.js';
export type { PetPageRequest, PetStorage } from './PetStorage.js';
export * from './schemas/index.js';
