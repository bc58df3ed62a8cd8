import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { describeStorageContract } from './contract.js';

describeStorageContract('memory storage', async () => createMemoryStorage());
