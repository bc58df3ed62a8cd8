/** @module Builds a fresh service over memory storage and speaks to it without a server. */
import { createPetService, type ErrorBody, type Pet, type PetServiceOptions } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';

export const KEY = 'test-key-number-1';
export const OTHER_KEY = 'test-key-number-2';
export const ORIGIN = 'http://localhost';

/** A service with two keys over a fresh memory storage; warnings are collected, not printed. */
export const makeService = (options: Partial<PetServiceOptions> = {}) => {
  const storage = options.storage ?? createMemoryStorage();
  const warnings: string[] = [];
  const errors: unknown[] = [];
  const service = createPetService({
    keys: [KEY, OTHER_KEY],
    logger: { warn: (message) => warnings.push(message), error: (_message, error) => errors.push(error) },
    ...options,
    storage,
  });

  const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const { key = KEY, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
    return service(new Request(`${ORIGIN}${path}`, { ...rest, headers }));
  };

  const post = (body: unknown, init: RequestInit & { key?: string | null } = {}) =>
    call('/v1/pets', {
      method: 'POST',
      ...init,
      headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
      body: typeof body === 'string' || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
    });

  /** Creates animals through HTTP and returns them as the service answered. */
  const seed = async (pets: Array<{ name: string; categoryId: number; status?: string }>): Promise<Pet[]> => {
    const created: Pet[] = [];
    for (const pet of pets) {
      const response = await post(pet);
      if (response.status !== 201) throw new Error(`seed failed: ${response.status} ${await response.text()}`);
      created.push((await response.json()) as Pet);
    }
    return created;
  };

  const listAll = async (): Promise<Pet[]> => {
    const all: Pet[] = [];
    for await (const page of service.catalogue.pages({ limit: 100 })) all.push(...page);
    return all;
  };

  return { service, storage, call, post, seed, listAll, warnings, errors };
};

/** Reads an Error body and checks the invariants every Error body keeps. */
export const errorOf = async (response: Response): Promise<ErrorBody> => {
  const body = (await response.json()) as ErrorBody;
  if (body.status !== response.status) throw new Error(`Error body status ${body.status} != HTTP ${response.status}`);
  if (!response.headers.get('content-type')?.startsWith('application/json')) throw new Error('Error body is not JSON');
  return body;
};
