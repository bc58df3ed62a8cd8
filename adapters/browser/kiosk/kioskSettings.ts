/** @module Where the kiosk's worker keeps its key: a small IndexedDB database of its own, on the device only. */
import { committed, requestResult } from '../../../storage/indexedDb/idbRequests.js';

const SETTINGS_DATABASE = 'animal-store-kiosk-settings';
const STORE = 'settings';

const open = (): Promise<IDBDatabase> => {
  const request = indexedDB.open(SETTINGS_DATABASE, 1);
  request.onupgradeneeded = () => request.result.createObjectStore(STORE);
  return requestResult(request);
};

/** The kiosk's key, or `undefined` before the tablet was provisioned. */
export const readKioskKey = async (): Promise<string | undefined> => {
  const db = await open();
  try {
    return (await requestResult(db.transaction(STORE).objectStore(STORE).get('key'))) as string | undefined;
  } finally {
    db.close();
  }
};

/** Keeps the kiosk's key durably (a strict commit), replacing any before. */
export const writeKioskKey = async (key: string): Promise<void> => {
  const db = await open();
  try {
    const transaction = db.transaction(STORE, 'readwrite', { durability: 'strict' });
    const done = committed(transaction);
    transaction.objectStore(STORE).put(key, 'key');
    await done;
  } finally {
    db.close();
  }
};
