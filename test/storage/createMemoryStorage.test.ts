import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { describeStorageContract } from './contract.js';
import { describeSyncContract } from './syncContract.js';

describeStorageContract('memory storage', async () => createMemoryStorage());

describeSyncContract('memory storage', { create: async () => createMemoryStorage() });
