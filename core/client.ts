/**
 * @module animal-store/client: a typed HTTP client for the service, for any runtime with
 * `fetch`. It shares its types with the server: `Pet`, `NewPetInput`, `ListQueryInput`.
 */

export type { Catalogue, NextPageQuery, PetPage, PetsQuery } from './catalogue/Catalogue.js';
export type { ClientErrorBody, ClientErrorCode } from './client/AnimalStoreClientError.js';
export { AnimalStoreClientError, isAnimalStoreClientError } from './client/AnimalStoreClientError.js';
export type { AnimalStoreClient, CallOptions, ClientCreatePetOptions, ClientOptions, ClientPetPage } from './client/createClient.js';
export { createClient } from './client/createClient.js';
export type { RetryOptions } from './client/retryPolicy.js';
export type { ErrorCode, ErrorDetail, ListQueryInput, NewPetInput, Pet, PetStatus } from './schemas/index.js';
export { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, PET_STATUSES } from './schemas/index.js';
