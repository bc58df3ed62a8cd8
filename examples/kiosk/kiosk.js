/**
 * @module The kiosk page's script: lists animals from the catalogue API with a status
 * filter and paging, keeps the page on screen fresh, and adds animals through the form.
 * Plain browser JavaScript with no build of its own; the package's typed client comes from
 * the page's server, bundled into animal-store-client.js.
 *
 * The client does the HTTP: it pages by the `next` query that the API's `Link` header names
 * (exposed to this origin through CORS); it tries again after failures that may pass (no
 * answer, a timeout, 502/503/504, a create still in flight, a short rate limit), and a
 * create keeps its Idempotency-Key on every try, so a dropped connection never adds an
 * animal twice; it asks for a page it has shown before with If-None-Match, so refreshing an
 * unchanged page costs a bodiless 304. Failures are worded for the person at the kiosk by
 * describeFailure.js. Animal names come from users, so they are only ever inserted as text,
 * never as HTML.
 */
import { createClient, isAnimalStoreClientError } from './animal-store-client.js';
import { describeCreateFailure, describeListFailure } from './describeFailure.js';

/** @typedef {{ id: number, name: string, categoryId: number, status: string }} Pet */
/** A page's query as the client takes it. @typedef {{ limit: number, status?: string, cursor?: string }} PetsQuery */
/** A page as the client answers it: the animals, and the next page's query while more remain. @typedef {{ pets: Pet[], next?: PetsQuery }} PetPage */

/** @param {string} id */
const byId = (id) => /** @type {any} */ (document.getElementById(id));

const elements = {
  filter: /** @type {HTMLSelectElement} */ (byId('status-filter')),
  pets: /** @type {HTMLTableSectionElement} */ (byId('pets')),
  listLoading: /** @type {HTMLElement} */ (byId('list-loading')),
  listError: /** @type {HTMLElement} */ (byId('list-error')),
  listErrorMessage: /** @type {HTMLElement} */ (byId('list-error-message')),
  retryList: /** @type {HTMLButtonElement} */ (byId('retry-list')),
  firstPage: /** @type {HTMLButtonElement} */ (byId('first-page')),
  nextPage: /** @type {HTMLButtonElement} */ (byId('next-page')),
  pageLabel: /** @type {HTMLElement} */ (byId('page-label')),
  form: /** @type {HTMLFormElement} */ (byId('add-pet')),
  addFields: /** @type {HTMLFieldSetElement} */ (byId('add-fields')),
  addButton: /** @type {HTMLButtonElement} */ (byId('add-button')),
  addMessage: /** @type {HTMLElement} */ (byId('add-message')),
  addError: /** @type {HTMLElement} */ (byId('add-error')),
  addErrorMessage: /** @type {HTMLElement} */ (byId('add-error-message')),
  addErrorDetails: /** @type {HTMLUListElement} */ (byId('add-error-details')),
  apiKey: /** @type {HTMLInputElement} */ (byId('api-key')),
  apiBase: /** @type {HTMLElement} */ (byId('api-base')),
  syncState: /** @type {HTMLElement} */ (byId('sync-state')),
};

/** How the statuses read on screen. */
const STATUS_WORDS = /** @type {Record<string, string>} */ ({ available: 'Available', pending: 'Pending', sold: 'Sold' });

/**
 * The page's settings from its own server: `{ apiBase, apiKey, pageSize, refreshSeconds }`,
 * or undefined if they could not be read.
 */
const config = await fetch('config.json')
  .then((response) => (response.ok ? response.json() : undefined))
  .catch(() => undefined);

/**
 * Milliseconds one try of a call may take before the client abandons it and tries again:
 * a small JSON answer takes far less even on a weak Wi-Fi, and the client's four tries give up
 * within about 35 seconds.
 */
const TRY_TIMEOUT = 8_000;

/** Seconds between two refreshes of the page on screen when config.json does not say. */
const DEFAULT_REFRESH_SECONDS = 30;

/** The client for the key in the settings; made again when the key changes. */
/** @type {ReturnType<typeof createClient>} */
let client;

/** Makes the client for the API key the settings hold now. */
const connect = () => {
  client = createClient({ baseUrl: config.apiBase, apiKey: elements.apiKey.value, timeout: TRY_TIMEOUT });
};

/**
 * What the list shows: the query of the page shown, its number, the next page's query, and
 * the animals as last drawn (so a refresh that brings nothing new draws nothing).
 */
const view = {
  query: /** @type {PetsQuery | undefined} */ (undefined),
  number: 1,
  next: /** @type {PetsQuery | undefined} */ (undefined),
  drawn: '',
};

/** What "Try again" does after the list failed. */
let retryList = () => location.reload();

/** Fills the table with a page of animals; text only, as names are user input. @param {Pet[]} pets */
const renderPets = (pets) => {
  const rows = pets.map((pet) => {
    const row = document.createElement('tr');
    row.dataset.petId = String(pet.id);
    const cells = [
      [`#${pet.id}`, 'id'],
      [pet.name, 'name'],
      [`Category ${pet.categoryId}`, 'category'],
      [STATUS_WORDS[pet.status] ?? pet.status, `status ${pet.status}`],
    ];
    for (const [text, className] of cells) {
      const cell = document.createElement('td');
      cell.textContent = text;
      cell.className = className;
      row.append(cell);
    }
    return row;
  });
  if (rows.length === 0) {
    const row = document.createElement('tr');
    const cell = document.createElement('td');
    cell.colSpan = 4;
    cell.className = 'empty';
    cell.textContent = 'No animals here.';
    row.append(cell);
    rows.push(row);
  }
  elements.pets.replaceChildren(...rows);
};

/**
 * Gives an element's property a value unless it has it already: what does not change is not
 * touched, so a refresh that brings nothing new moves nothing on screen.
 * @param {any} element @param {string} property @param {unknown} value
 */
const put = (element, property, value) => {
  if (element[property] !== value) element[property] = value;
};

/**
 * Marks the list as loading or not. The pager waits for the page it acts on; the filter
 * stays usable, and only the newest request is shown.
 * @param {boolean} loading
 */
const setListLoading = (loading) => {
  if (elements.pets.getAttribute('aria-busy') !== String(loading)) elements.pets.setAttribute('aria-busy', String(loading));
  put(elements.listLoading, 'hidden', !loading);
  put(elements.retryList, 'disabled', loading);
  put(elements.firstPage, 'disabled', loading || view.number === 1);
  put(elements.nextPage, 'disabled', loading || view.next === undefined);
  put(elements.pageLabel, 'textContent', `Page ${view.number}`);
};

/**
 * The list request on its way, if any, and whether it is a refresh. Only the newest one's
 * answer is shown.
 * @type {{ controller: AbortController, refreshing: boolean } | undefined}
 */
let listCall;

/**
 * Starts a list request. A page the person asked for and no longer wants is cancelled, with
 * the client's retries; a refresh on its way is left to end (it is mostly a bodiless 304) and
 * its answer dropped. @param {boolean} refreshing
 */
const startListCall = (refreshing) => {
  if (listCall && !listCall.refreshing) listCall.controller.abort();
  listCall = { controller: new AbortController(), refreshing };
  return listCall;
};

/**
 * Takes in a page that arrived, drawing the rows only when its animals differ from those on
 * screen. @param {PetsQuery} query @param {number} number @param {PetPage} page
 */
const showList = (query, number, page) => {
  const drawn = JSON.stringify(page.pets);
  if (drawn !== view.drawn) renderPets(page.pets);
  Object.assign(view, { query, number, next: page.next, drawn });
  put(elements.listError, 'hidden', true);
};

/**
 * Shows why the list could not be loaded, and makes "Try again" ask again (from the first
 * page when the catalogue refused the page's query). Leaves an identical message untouched.
 * @param {unknown} failure @param {PetsQuery} query @param {number} number
 */
const showListFailure = (failure, query, number) => {
  retryList = isAnimalStoreClientError(failure) && failure.status === 400 ? () => showPage(firstQuery(), 1) : () => showPage(query, number);
  const message = describeListFailure(failure);
  put(elements.listErrorMessage, 'textContent', message);
  put(elements.listError, 'hidden', false);
};

/** Shows the page of `query` as page number `number`. @param {PetsQuery} query @param {number} number */
const showPage = async (query, number) => {
  const call = startListCall(false);
  // Disabling the pressed button drops its focus; give it back once the page is shown.
  const focused = document.activeElement;
  setListLoading(true);
  /** @type {PetPage} */
  let page;
  try {
    page = await client.listPets(query, { signal: call.controller.signal });
  } catch (failure) {
    if (call !== listCall) return;
    listCall = undefined;
    showListFailure(failure, query, number);
    setListLoading(false);
    restoreFocus(focused);
    return;
  }
  if (call !== listCall) return;
  listCall = undefined;
  showList(query, number, page);
  setListLoading(false);
  restoreFocus(focused);
};

/**
 * Asks again for the page on screen, quietly: no loading state, and nothing on screen touched
 * unless it changed. The client sends the page's ETag, so an unchanged page comes back as a
 * bodiless 304. Skipped while the person is loading a page, and while nobody can see it.
 */
const refresh = async () => {
  if (listCall !== undefined || view.query === undefined || document.hidden) return;
  const call = startListCall(true);
  const { query, number } = view;
  const focused = document.activeElement;
  try {
    const page = await client.listPets(query, { signal: call.controller.signal });
    if (call !== listCall) return;
    listCall = undefined;
    showList(query, number, page);
    setListLoading(false);
    restoreFocus(focused);
  } catch (failure) {
    if (call !== listCall) return;
    listCall = undefined;
    // The rows stay, and the message says they may be out of date until a refresh works.
    showListFailure(failure, query, number);
  }
};

/** Refreshes the page on screen every `refreshSeconds`, one refresh at a time. */
const keepFresh = () => {
  const seconds = Number(config.refreshSeconds) > 0 ? Number(config.refreshSeconds) : DEFAULT_REFRESH_SECONDS;
  const next = () => setTimeout(() => refresh().finally(next), seconds * 1000);
  next();
};

/** Seconds between two looks at the kiosk's sync state. */
const SYNC_LOOK_SECONDS = 3;

/**
 * Words the sync state of a kiosk API (GET {base}/sync/status) for the person at the kiosk:
 * "Offline, 3 waiting to sync" while its hub cannot be reached, so nobody wonders where the
 * animals went. @param {{ reachable: boolean, waiting: number }} status
 */
const syncWords = ({ reachable, waiting }) => {
  const wait = waiting === 1 ? '1 animal waiting to sync' : `${waiting} animals waiting to sync`;
  if (!reachable) return `Offline, ${wait}. Animals added here are kept and sync once the network is back.`;
  return waiting === 0 ? 'Online, everything synced.' : `Online, ${wait}.`;
};

/** Shows the sync state now and every few seconds, when the API is a kiosk that syncs with a hub. */
const watchSync = () => {
  const look = async () => {
    try {
      const response = await fetch(`${config.apiBase}/sync/status`, { headers: { authorization: `Bearer ${elements.apiKey.value}` } });
      if (!response.ok) return;
      const status = await response.json();
      put(elements.syncState, 'textContent', syncWords(status));
      elements.syncState.classList.toggle('offline', !status.reachable);
      put(elements.syncState, 'hidden', false);
    } catch {
      // The kiosk's own API is out of reach: the list says so already.
    }
  };
  const next = () => setTimeout(() => look().finally(next), SYNC_LOOK_SECONDS * 1000);
  void look().finally(next);
};

/** Puts focus back on a control that loading disabled, or on the nearest pager button that still works. @param {Element | null} focused */
const restoreFocus = (focused) => {
  if (document.activeElement !== document.body || !(focused instanceof HTMLElement)) return;
  const candidates = [focused, elements.nextPage, elements.firstPage, elements.filter];
  candidates.find((control) => control.isConnected && !(/** @type {HTMLButtonElement} */ (control).disabled))?.focus();
};

/** The first page for the chosen status filter. @returns {PetsQuery} */
const firstQuery = () => {
  const limit = Number(config.pageSize ?? 10);
  return elements.filter.value ? { limit, status: elements.filter.value } : { limit };
};

/** Marks the form as sending or not: nothing can be changed or sent twice meanwhile. @param {boolean} sending */
const setSending = (sending) => {
  elements.addFields.disabled = sending;
  elements.form.setAttribute('aria-busy', String(sending));
  elements.addButton.textContent = sending ? 'Adding…' : 'Add animal';
};

/** Shows why the animal was not added, marking the fields to fix. @param {unknown} failure @param {{ name: string, categoryId: string }} sent */
const showCreateFailure = (failure, sent) => {
  const { message, fields } = describeCreateFailure(failure, sent);
  elements.addErrorMessage.textContent = message;
  elements.addErrorDetails.replaceChildren(
    ...fields.map((field) => {
      const item = document.createElement('li');
      item.textContent = field.message;
      return item;
    }),
  );
  for (const input of elements.form.querySelectorAll('[name]')) {
    const invalid = fields.some((field) => field.path === input.getAttribute('name'));
    if (invalid) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
  elements.addError.hidden = false;
};

/** A fresh Idempotency-Key: 128 random bits in hex (getRandomValues works on plain-http kiosks too, unlike randomUUID). */
const freshKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');

/**
 * The last animal that was sent and not confirmed, with its Idempotency-Key. When nothing
 * came back, nobody knows whether it was stored; sending the same animal again reuses the
 * key, so the catalogue answers with the one it stored instead of adding a second.
 * @type {{ payload: string, key: string } | undefined}
 */
let unconfirmed;

/** Sends the form as a new animal and shows what came of it. */
const addPet = async () => {
  const fields = new FormData(elements.form);
  const sent = { name: String(fields.get('name')), categoryId: String(fields.get('categoryId')) };
  const categoryId = sent.categoryId.trim();
  // Digits become a number; anything else goes as typed, and the API says what is wrong with it.
  const newPet = { name: sent.name, categoryId: /^\d+$/.test(categoryId) ? Number(categoryId) : categoryId, status: fields.get('status') };
  const payload = JSON.stringify(newPet);
  const idempotencyKey = unconfirmed?.payload === payload ? unconfirmed.key : freshKey();
  elements.addMessage.textContent = '';
  elements.addError.hidden = true;
  setSending(true);
  /** @type {Pet} */
  let pet;
  try {
    // One call: the client retries what may pass with this same key.
    pet = await client.createPet(/** @type {any} */ (newPet), { idempotencyKey });
  } catch (failure) {
    unconfirmed = { payload, key: idempotencyKey };
    showCreateFailure(failure, sent);
    setSending(false);
    (elements.form.querySelector('[aria-invalid="true"]') ?? elements.addButton).focus();
    return;
  }
  unconfirmed = undefined;
  elements.form.reset();
  for (const input of elements.form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  elements.addMessage.textContent = `Added ${pet.name} as #${pet.id}.`;
  setSending(false);
  elements.form.elements.namedItem('name')?.focus();
  // Pages are stable, so asking again for the page on screen shows the new animal if it falls there.
  await showPage(view.query ?? firstQuery(), view.number);
};

if (config) {
  elements.apiKey.value = config.apiKey ?? '';
  elements.apiBase.textContent = config.apiBase;
  connect();
  elements.filter.addEventListener('change', () => showPage(firstQuery(), 1));
  elements.firstPage.addEventListener('click', () => showPage(firstQuery(), 1));
  elements.nextPage.addEventListener('click', () => view.next && showPage(view.next, view.number + 1));
  elements.retryList.addEventListener('click', () => retryList());
  elements.apiKey.addEventListener('change', () => {
    connect();
    void showPage(firstQuery(), 1);
  });
  elements.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void addPet();
  });
  if (config.sync) watchSync();
  await showPage(firstQuery(), 1);
  keepFresh();
} else {
  elements.listErrorMessage.textContent = 'The kiosk could not start. Please press "Try again" to reload the page.';
  elements.retryList.addEventListener('click', () => retryList());
  elements.listError.hidden = false;
  elements.listLoading.hidden = true;
}
