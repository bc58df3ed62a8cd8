/**
 * @module animal-store/testing: helpers for the tests of apps that use animal-store.
 * A seeded in-memory catalogue that resets between tests and can slow down or fail chosen
 * operations, plus seed loading from a JSON file.
 */

export type { TestCatalogue, TestCatalogueOptions } from './testing/createTestCatalogue.js';
export { createTestCatalogue } from './testing/createTestCatalogue.js';
export { loadSeedFile } from './testing/loadSeedFile.js';
export type { Seed } from './testing/toSeedPets.js';
export { toSeedPets } from './testing/toSeedPets.js';
export type { CatalogueOperation, Fault, FaultyStorage } from './testing/withFaults.js';
export { isInjectedFault, withFaults } from './testing/withFaults.js';
