/** @module The client and the in-process catalogue agree on where the next page starts. */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../../core/client.js';
import { createPetService } from '../../../core/index.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';

const KEY = 'next-page-test-key-01';

const catalogueOf = async (count: number) => {
  const service = createPetService({ storage: createMemoryStorage(), keys: [KEY] });
  for (let i = 0; i < count; i++)
    await service.catalogue.createPet({ name: `Pet ${i}`, categoryId: 1, status: i % 2 ? 'sold' : 'available' });
  const client = createClient({ baseUrl: 'http://in.process/v1', apiKey: KEY, fetch: (request) => service(request), retry: false });
  return { catalogue: service.catalogue, client };
};

describe('the next page of a list', () => {
  it('Should be the same query over HTTP as in process, status and limit included', async () => {
    const { catalogue, client } = await catalogueOf(9);
    const overHttp = await client.listPets({ limit: 2, status: 'sold' });
    const inProcess = await catalogue.listPets({ limit: 2, status: 'sold' });
    expect(overHttp.next).toEqual(inProcess.next);
    expect(overHttp.next).toEqual({ limit: 2, status: 'sold', cursor: expect.any(String) });
    expect(await client.listPets(overHttp.next)).toEqual(await catalogue.listPets(inProcess.next));
  });

  it("Should carry the service's default page size when the first query named none", async () => {
    const { catalogue, client } = await catalogueOf(25);
    const overHttp = await client.listPets();
    expect(overHttp.pets).toHaveLength(20);
    expect(overHttp.next).toEqual((await catalogue.listPets()).next);
    expect((await client.listPets(overHttp.next)).next).toBeUndefined();
  });
});
