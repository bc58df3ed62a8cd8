/**
 * @module animal-store/client: a typed HTTP client for the service, for any runtime with
 * `fetch`. It shares its types with the server: `Pet`, `NewPetInput`, `ListQueryInput`.
 */
export { createClient } from './createClient.js';
export type { AnimalStoreClient, ClientOptions, ClientPetPage } from './createClient.js';
export { AnimalStoreClientError, isAnimalStoreClientError } from './AnimalStoreClientError.js';
export type { ClientErrorBody, ClientErrorCode } from './AnimalStoreClientError.js';
export { PET_STATUSES, LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN } from '../schemas/index.js';
export type { ErrorCode, ErrorDetail, ListQueryInput, NewPetInput, Pet, PetStatus } from '../schemas/index.js';
