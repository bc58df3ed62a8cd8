/** @module The valibot schemas: the single source of the service's types and validation. */

export * from './ErrorBody.js';
export * from './ListQuery.js';
export * from './NewPet.js';
export * from './Pet.js';
export * from './PetStatus.js';
export * from './SyncSchemas.js';
