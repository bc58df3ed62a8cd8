/**
 * @module The names of the first release, kept so that code written against it still
 * compiles and runs. Each is the same thing under its new name; use the new name.
 */
import type { PetService, PetServiceLogger, PetServiceOptions } from './createPetService.js';
import { createPetService } from './createPetService.js';

/** @deprecated Use `createPetService`: "store" now names only the package. */
export const createAnimalStore = createPetService;
/** @deprecated Use `PetService`. */
export type AnimalStore = PetService;
/** @deprecated Use `PetServiceOptions`. */
export type AnimalStoreOptions = PetServiceOptions;
/** @deprecated Use `PetServiceLogger`. */
export type AnimalStoreLogger = PetServiceLogger;
