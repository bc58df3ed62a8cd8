/**
 * @module The kiosk page's script: lists animals from the catalogue API with a status
 * filter and paging, and adds animals through the form. Plain browser JavaScript, no build.
 *
 * Paging follows the API's `Link: <…>; rel="next"` header, which the API exposes to this
 * origin through CORS; its URL is relative to the API, not to this page. Failures are worded
 * for the person at the kiosk by describeFailure.js. Animal names come from users, so they
 * are only ever inserted as text, never as HTML.
 */
import { ApiFailure, describeCreateFailure, describeListFailure } from './describeFailure.js';

/** @typedef {{ id: number, name: string, categoryId: number, status: string }} Pet */

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
};

/** How the statuses read on screen. */
const STATUS_WORDS = /** @type {Record<string, string>} */ ({ available: 'Available', pending: 'Pending', sold: 'Sold' });

/** The page's settings from its own server: `{ apiBase, apiKey, pageSize }`, or undefined if they could not be read. */
const config = await fetch('config.json')
  .then((response) => (response.ok ? response.json() : undefined))
  .catch(() => undefined);

/**
 * Calls the API with the kiosk's key. Resolves with the response when it succeeded, else
 * throws an ApiFailure with the status and Error body (or none, when no answer came).
 * @param {string} url @param {RequestInit} [init]
 */
const callApi = async (url, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${elements.apiKey.value}`);
  let response;
  try {
    response = await fetch(url, { ...init, headers });
  } catch {
    throw new ApiFailure(undefined, undefined);
  }
  if (response.ok) return response;
  throw new ApiFailure(response.status, await response.json().catch(() => undefined));
};

/** The `rel="next"` target of a Link header, made absolute against the API, if any. @param {string | null} link */
const nextPageUrl = (link) => {
  for (const [, target, params] of (link ?? '').matchAll(/<([^>]*)>([^,]*)/g)) {
    if (/;\s*rel="?next"?/i.test(params)) return new URL(target, config.apiBase).href;
  }
  return undefined;
};

/** What the list shows: the page being shown, its number, and the next page's URL. */
const view = { url: '', number: 1, next: /** @type {string | undefined} */ (undefined) };

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
 * Marks the list as loading or not. The pager waits for the page it acts on; the filter
 * stays usable, and only the newest request is shown.
 * @param {boolean} loading
 */
const setListLoading = (loading) => {
  elements.pets.setAttribute('aria-busy', String(loading));
  elements.listLoading.hidden = !loading;
  elements.retryList.disabled = loading;
  elements.firstPage.disabled = loading || view.number === 1;
  elements.nextPage.disabled = loading || view.next === undefined;
  elements.pageLabel.textContent = `Page ${view.number}`;
};

/** Counts list requests, so an answer overtaken by a newer request is dropped. */
let latestListRequest = 0;

/** Shows the page at `url` as page number `number`. @param {string} url @param {number} number */
const showPage = async (url, number) => {
  const request = ++latestListRequest;
  // Disabling the pressed button drops its focus; give it back once the page is shown.
  const focused = document.activeElement;
  setListLoading(true);
  let pets;
  let link = null;
  try {
    const response = await callApi(url);
    pets = await response.json();
    link = response.headers.get('link');
  } catch (failure) {
    if (request !== latestListRequest) return;
    retryList = failure instanceof ApiFailure && failure.status === 400 ? () => showPage(firstPageUrl(), 1) : () => showPage(url, number);
    elements.listErrorMessage.textContent = describeListFailure(failure);
    elements.listError.hidden = false;
    setListLoading(false);
    restoreFocus(focused);
    return;
  }
  if (request !== latestListRequest) return;
  renderPets(pets);
  Object.assign(view, { url, number, next: nextPageUrl(link) });
  elements.listError.hidden = true;
  setListLoading(false);
  restoreFocus(focused);
};

/** Puts focus back on a control that loading disabled, or on the nearest pager button that still works. @param {Element | null} focused */
const restoreFocus = (focused) => {
  if (document.activeElement !== document.body || !(focused instanceof HTMLElement)) return;
  const candidates = [focused, elements.nextPage, elements.firstPage, elements.filter];
  candidates.find((control) => control.isConnected && !(/** @type {HTMLButtonElement} */ (control).disabled))?.focus();
};

/** The first page for the chosen status filter. */
const firstPageUrl = () => {
  const url = new URL(`${config.apiBase}/pets`);
  url.searchParams.set('limit', String(config.pageSize ?? 10));
  if (elements.filter.value) url.searchParams.set('status', elements.filter.value);
  return url.href;
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

/** Sends the form as a new animal and shows what came of it. */
const addPet = async () => {
  const fields = new FormData(elements.form);
  const sent = { name: String(fields.get('name')), categoryId: String(fields.get('categoryId')) };
  const categoryId = sent.categoryId.trim();
  // Digits become a number; anything else goes as typed, and the API says what is wrong with it.
  const newPet = { name: sent.name, categoryId: /^\d+$/.test(categoryId) ? Number(categoryId) : categoryId, status: fields.get('status') };
  elements.addMessage.textContent = '';
  elements.addError.hidden = true;
  setSending(true);
  try {
    const response = await callApi(`${config.apiBase}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(newPet),
    });
    /** @type {Pet} */
    const pet = await response.json();
    elements.form.reset();
    for (const input of elements.form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
    elements.addMessage.textContent = `Added ${pet.name} as #${pet.id}.`;
    setSending(false);
    elements.form.elements.namedItem('name')?.focus();
    // Pages are stable, so reloading the page on screen shows the new animal if it falls there.
    await showPage(view.url || firstPageUrl(), view.number);
  } catch (failure) {
    showCreateFailure(failure, sent);
    setSending(false);
    (elements.form.querySelector('[aria-invalid="true"]') ?? elements.addButton).focus();
  }
};

if (config) {
  elements.apiKey.value = config.apiKey ?? '';
  elements.apiBase.textContent = config.apiBase;
  elements.filter.addEventListener('change', () => showPage(firstPageUrl(), 1));
  elements.firstPage.addEventListener('click', () => showPage(firstPageUrl(), 1));
  elements.nextPage.addEventListener('click', () => view.next && showPage(view.next, view.number + 1));
  elements.retryList.addEventListener('click', () => retryList());
  elements.apiKey.addEventListener('change', () => showPage(firstPageUrl(), 1));
  elements.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void addPet();
  });
  await showPage(firstPageUrl(), 1);
} else {
  elements.listErrorMessage.textContent = 'The kiosk could not start. Please press "Try again" to reload the page.';
  elements.retryList.addEventListener('click', () => retryList());
  elements.listError.hidden = false;
  elements.listLoading.hidden = true;
}
