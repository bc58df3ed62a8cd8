/**
 * @module The kiosk page's script: lists animals from the catalogue API with a status
 * filter and paging, and adds animals through the form. Plain browser JavaScript, no build.
 *
 * Paging follows the API's `Link: <…>; rel="next"` header, which the API exposes to this
 * origin through CORS; its URL is relative to the API, not to this page. Every failure is
 * shown with the message of the API's Error body, which is written for people to read.
 * Animal names come from users, so they are only ever inserted as text, never as HTML.
 */

/** @typedef {{ id: number, name: string, categoryId: number, status: string }} Pet */

const config = await (await fetch('config.json')).json();

const elements = {
  filter: /** @type {HTMLSelectElement} */ (document.getElementById('status-filter')),
  pets: /** @type {HTMLTableSectionElement} */ (document.getElementById('pets')),
  listError: /** @type {HTMLElement} */ (document.getElementById('list-error')),
  firstPage: /** @type {HTMLButtonElement} */ (document.getElementById('first-page')),
  nextPage: /** @type {HTMLButtonElement} */ (document.getElementById('next-page')),
  pageLabel: /** @type {HTMLElement} */ (document.getElementById('page-label')),
  form: /** @type {HTMLFormElement} */ (document.getElementById('add-pet')),
  addMessage: /** @type {HTMLElement} */ (document.getElementById('add-message')),
  addError: /** @type {HTMLElement} */ (document.getElementById('add-error')),
  addErrorMessage: /** @type {HTMLElement} */ (document.getElementById('add-error-message')),
  addErrorDetails: /** @type {HTMLUListElement} */ (document.getElementById('add-error-details')),
  apiKey: /** @type {HTMLInputElement} */ (document.getElementById('api-key')),
  apiBase: /** @type {HTMLElement} */ (document.getElementById('api-base')),
};
elements.apiKey.value = config.apiKey ?? '';
elements.apiBase.textContent = config.apiBase;

/** A failure to show: the API's message and its per-field details. */
class KioskError extends Error {
  /** @param {string} message @param {{ path: string, message: string }[]} [details] */
  constructor(message, details = []) {
    super(message);
    this.details = details;
  }
}

/**
 * Calls the API with the kiosk's key. Resolves with the response when it succeeded, else
 * throws a KioskError carrying the Error body's message.
 * @param {string} url @param {RequestInit} [init]
 */
const callApi = async (url, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${elements.apiKey.value}`);
  let response;
  try {
    response = await fetch(url, { ...init, headers });
  } catch {
    throw new KioskError(`The catalogue at ${config.apiBase} cannot be reached. Is it running?`);
  }
  if (response.ok) return response;
  const body = await response.json().catch(() => undefined);
  throw new KioskError(body?.message ?? `The catalogue answered ${response.status}.`, body?.details);
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

/** Fills the table with a page of animals; text only, as names are user input. @param {Pet[]} pets */
const renderPets = (pets) => {
  const rows = pets.map((pet) => {
    const row = document.createElement('tr');
    row.dataset.petId = String(pet.id);
    for (const [text, className] of [[`#${pet.id}`], [pet.name], [`Category ${pet.categoryId}`], [pet.status, `status ${pet.status}`]]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      if (className) cell.className = className;
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

/** Shows the page at `url` as page number `number`. @param {string} url @param {number} number */
const showPage = async (url, number) => {
  elements.pets.setAttribute('aria-busy', 'true');
  elements.nextPage.disabled = true;
  try {
    const response = await callApi(url);
    renderPets(await response.json());
    Object.assign(view, { url, number, next: nextPageUrl(response.headers.get('link')) });
    elements.listError.hidden = true;
  } catch (error) {
    elements.listError.textContent = error instanceof Error ? error.message : String(error);
    elements.listError.hidden = false;
  } finally {
    elements.pageLabel.textContent = `Page ${view.number}`;
    elements.nextPage.disabled = view.next === undefined;
    elements.firstPage.disabled = view.number === 1;
    elements.pets.setAttribute('aria-busy', 'false');
  }
};

/** The first page for the chosen status filter. */
const firstPageUrl = () => {
  const url = new URL(`${config.apiBase}/pets`);
  url.searchParams.set('limit', String(config.pageSize ?? 10));
  if (elements.filter.value) url.searchParams.set('status', elements.filter.value);
  return url.href;
};

elements.filter.addEventListener('change', () => showPage(firstPageUrl(), 1));
elements.firstPage.addEventListener('click', () => showPage(firstPageUrl(), 1));
elements.nextPage.addEventListener('click', () => view.next && showPage(view.next, view.number + 1));
elements.apiKey.addEventListener('change', () => showPage(firstPageUrl(), 1));

elements.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const fields = new FormData(elements.form);
  const categoryId = String(fields.get('categoryId')).trim();
  // Digits become a number; anything else goes as typed, and the API says what is wrong with it.
  const newPet = {
    name: fields.get('name'),
    categoryId: /^\d+$/.test(categoryId) ? Number(categoryId) : categoryId,
    status: fields.get('status'),
  };
  elements.addMessage.textContent = '';
  elements.addError.hidden = true;
  try {
    const response = await callApi(`${config.apiBase}/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(newPet),
    });
    /** @type {Pet} */
    const pet = await response.json();
    elements.form.reset();
    elements.addMessage.textContent = `Added ${pet.name} as #${pet.id}.`;
    // Pages are stable, so reloading the page on screen shows the new animal if it falls there.
    await showPage(view.url, view.number);
  } catch (error) {
    elements.addErrorMessage.textContent = error instanceof Error ? error.message : String(error);
    const details = error instanceof KioskError ? error.details : [];
    elements.addErrorDetails.replaceChildren(
      ...details.map((detail) => {
        const item = document.createElement('li');
        item.textContent = `${detail.path}: ${detail.message}`;
        return item;
      }),
    );
    elements.addError.hidden = false;
  }
});

await showPage(firstPageUrl(), 1);
