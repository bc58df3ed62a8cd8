import { describe } from 'vitest';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { describeStorageContract } from './contract.js';
import { describeSyncContract } from './syncContract.js';
import { describeSyncProperties } from './syncProperty.js';

describeStorageContract('memory storage', async () => createMemoryStorage());

describeSyncContract('memory storage', { create: async () => createMemoryStorage() });

describe('memory storage syncing, whatever it is sent', () => {
  describeSyncProperties('memory storage', { create: async () => createMemoryStorage() }, 200);
});
