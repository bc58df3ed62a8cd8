/**
 * @module animal-store: the framework-agnostic core. A Web Request goes in, a Response
 * comes out; storage, keys, base path and clock are passed in.
 */

export type { AnimalStoreErrorOptions } from './AnimalStoreError.js';
export { AnimalStoreError, isAnimalStoreError } from './AnimalStoreError.js';
export type { Catalogue, NextPageQuery, PetPage, PetsQuery } from './catalogue/Catalogue.js';
export type { CatalogueOptions } from './catalogue/createCatalogue.js';
export { createCatalogue } from './catalogue/createCatalogue.js';
export type { DeprecatedUse, PetService, PetServiceOptions, RequestContext } from './createPetService.js';
export { createPetService } from './createPetService.js';
export type { Sha256 } from './digest.js';
export type { CorsOptions } from './http/createCors.js';
export { createOpenApiDocument, INTERFACE_VERSION } from './http/openApiDocument.js';
export type { MaybePromise } from './MaybePromise.js';
export type { AccessLogEntry, PetServiceLogger } from './PetServiceLogger.js';
export type { PetPageRequest, PetPageText, PetStorage } from './PetStorage.js';
export * from './schemas/index.js';
export { createSyncClient, type SyncClient, type SyncClientOptions, SyncHubError } from './sync/createSyncClient.js';
export { type IdBlock, type KioskState, type StoreResult, SyncJoinError, type SyncStorage } from './sync/SyncStorage.js';
