/**
 * @module The adoption board's tests, with animal-store as their backend: a seeded
 * in-memory catalogue, called in process through its `fetch` (no server, no port), reset
 * before every test, with latency and failures injected where a test needs them.
 */
import { createTestCatalogue, loadSeedFile } from 'animal-store/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAdoptionBoard, UNAVAILABLE } from './adoptionBoard.js';

// Seeded once from a file; reset() returns to exactly these animals, ids and all.
const catalogue = createTestCatalogue({ seed: await loadSeedFile(new URL('seed.json', import.meta.url)) });
const board = createAdoptionBoard({ baseUrl: catalogue.baseUrl, apiKey: catalogue.apiKey, fetch: catalogue.fetch, deadline: 1_000 });

beforeEach(() => catalogue.reset());

describe('the adoption board', () => {
  it('shows the available animals of the seed', async () => {
    expect(await board.view()).toEqual({ animals: ['Biscuit (#1)', 'Pepper (#3)', 'Mochi (#5)'] });
  });

  it('shows animals from every page when there are many', async () => {
    for (let number = 1; number <= 45; number++) await catalogue.catalogue.createPet({ name: `Kitten ${number}`, categoryId: 2 });
    const view = await board.view();
    expect('animals' in view && view.animals).toHaveLength(48);
    expect('animals' in view && view.animals.at(-1)).toBe('Kitten 45 (#50)');
  });

  it('registers an arrival, which then shows on the board', async () => {
    expect(await board.registerArrival({ name: 'Clover', categoryId: 4 })).toBe('Clover is #6 and available.');
    expect(await board.view()).toEqual({ animals: ['Biscuit (#1)', 'Pepper (#3)', 'Mochi (#5)', 'Clover (#6)'] });
  });

  it('starts every test from the seed again', async () => {
    // Had the previous test's Clover survived, this one would be #7.
    expect(await board.registerArrival({ name: 'Saffron', categoryId: 3, status: 'pending' })).toBe('Saffron is #6 and pending.');
  });

  it("shows the catalogue's reason when an arrival is refused", async () => {
    expect(await board.registerArrival({ name: 'Tofu', categoryId: 0 })).toMatch(/^Not registered: The animal is not valid: categoryId /);
  });

  it('retries a read that failed once', async () => {
    catalogue.inject({ operation: 'listPets', error: 'storage_unavailable', times: 1 });
    expect(await board.view()).toEqual({ animals: ['Biscuit (#1)', 'Pepper (#3)', 'Mochi (#5)'] });
  });

  it('shows a message when the catalogue keeps failing', async () => {
    catalogue.inject({ operation: 'listPets', error: 'storage_unavailable' });
    expect(await board.view()).toEqual({ message: UNAVAILABLE });
  });

  it('waits for a slow catalogue within its deadline', async () => {
    catalogue.inject({ operation: 'listPets', latency: 20 });
    expect(await board.view()).toEqual({ animals: ['Biscuit (#1)', 'Pepper (#3)', 'Mochi (#5)'] });
  });

  it('shows a message instead of hanging when the catalogue is too slow', async () => {
    catalogue.inject({ operation: 'listPets', latency: 10_000, times: 1 });
    expect(await board.view()).toEqual({ message: UNAVAILABLE });
  });
});
