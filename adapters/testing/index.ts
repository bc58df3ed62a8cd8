/**
 * @module animal-store/testing: helpers for the tests of apps that use animal-store.
 * A seeded in-memory catalogue that resets between tests and can slow down or fail chosen
 * operations, plus seed loading from a JSON file.
 */

export type { TestCatalogue, TestCatalogueOptions } from './createTestCatalogue.js';
export { createTestCatalogue } from './createTestCatalogue.js';
export { loadSeedFile } from './loadSeedFile.js';
export type { Seed } from './toSeedPets.js';
export { toSeedPets } from './toSeedPets.js';
export type { CatalogueOperation, Fault, FaultyStorage } from './withFaults.js';
export { isInjectedFault, withFaults } from './withFaults.js';
