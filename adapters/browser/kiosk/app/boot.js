/**
 * @module The browser kiosk's first script: puts the page under its service worker before any
 * API request is made, hands the key from the address (`#key=KEY`, a fragment never sent to
 * a server) to the worker once and removes it from the address bar, asks the browser to keep
 * the kiosk's storage, then starts the kiosk page itself (kiosk.js), whose API the worker answers.
 */

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** Shows why the kiosk cannot start, instead of the list. @param {string} text */
const refuse = (text) => {
  byId('setup-state').textContent = text;
  byId('setup-state').hidden = false;
  byId('list-loading').hidden = true;
};

/**
 * Sends a message to the worker and resolves with its answer (on the message's own port).
 * @param {ServiceWorker} worker @param {object} message @returns {Promise<any>}
 */
const ask = (worker, message) =>
  new Promise((resolve, reject) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => reject(new Error('The kiosk worker did not answer.')), 10_000);
    channel.port1.onmessage = ({ data }) => {
      clearTimeout(timer);
      if (data.ok) resolve(data.value);
      else reject(new Error(data.message));
    };
    worker.postMessage(message, [channel.port2]);
  });

/** Resolves once a worker controls this page (a hard reload leaves it uncontrolled: the worker is asked to claim it). */
const controlled = async () => {
  const registration = await navigator.serviceWorker.ready;
  if (navigator.serviceWorker.controller) return navigator.serviceWorker.controller;
  const changed = new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  if (registration.active) await ask(registration.active, { type: 'claim' });
  await changed;
  return /** @type {ServiceWorker} */ (navigator.serviceWorker.controller);
};

/** Words bytes for people. @param {number} bytes */
const size = (bytes) => {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
};

/** Asks the browser to keep this site's storage (no eviction under pressure) and shows what it granted and uses. */
const keepStorage = async () => {
  const storage = navigator.storage;
  if (!storage?.persist || !storage.estimate) {
    byId('storage-state').textContent = 'Storage: this browser does not say whether it keeps the kiosk\u2019s data.';
    return;
  }
  const persisted = (await storage.persisted()) || (await storage.persist());
  const { usage = 0, quota = 0 } = await storage.estimate();
  const state = byId('storage-state');
  state.dataset.persisted = String(persisted);
  state.dataset.usage = String(usage);
  state.dataset.quota = String(quota);
  state.textContent = `Storage: ${persisted ? 'persisted (the browser keeps it)' : 'not persisted (the browser may clear it when space runs low)'}, ${size(usage)} used of ${size(quota)}.`;
};

const hub = /** @type {HTMLMetaElement} */ (document.querySelector('meta[name="animal-store-hub"]')).content;
const key = new URLSearchParams(location.hash.slice(1)).get('key');
// Out of the address bar before anything else, so it is not bookmarked, shared or shown.
if (key !== null) history.replaceState(null, '', location.pathname + location.search);

if (!('serviceWorker' in navigator)) {
  refuse('This browser cannot run the kiosk: it needs service workers, which browsers offer over https (or on localhost).');
} else {
  try {
    await navigator.serviceWorker.register(`worker.js?hub=${encodeURIComponent(hub)}`, { scope: './' });
    const worker = await controlled();
    const { provisioned } = await ask(worker, key === null ? { type: 'ping' } : { type: 'provision', key });
    if (provisioned) {
      void keepStorage();
      await import('./kiosk.js');
    } else {
      refuse('This kiosk is not set up yet: open /kiosk/#key=KEY once on this device, with the key the store gave it.');
    }
  } catch (error) {
    refuse(`The kiosk could not start: ${error instanceof Error ? error.message : String(error)}. Please reload the page.`);
  }
}
