/** @module Waits for a storage's health to answer as wanted (its probes run at most once a second). */
import { expect } from 'vitest';
import type { PetStorage, StorageHealth } from '../../../core/PetStorage.js';

/** Asks for the storage's health until it answers as `wanted`, for up to about 5 s; fails the test otherwise. */
export const untilHealth = async (storage: PetStorage, wanted: (health: StorageHealth) => boolean): Promise<StorageHealth> => {
  let health = await storage.checkHealth!();
  for (let attempt = 0; attempt < 100 && !wanted(health); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    health = await storage.checkHealth!();
  }
  expect(wanted(health), JSON.stringify(health)).toBe(true);
  return health;
};
