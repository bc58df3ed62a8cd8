/** The published OpenAPI document is valid, and real answers conform to it. */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { makeService } from './helpers.js';

const documentOf = async () => {
  const { call } = makeService();
  return (await (await call('/v1/openapi.json', { key: null })).json()) as any;
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await documentOf();
    await expect(SwaggerParser.validate(structuredClone(document))).resolves.toBeTruthy();
  });

  it('describes the answers the service really gives', async () => {
    const document = await documentOf();
    const ajv = new Ajv2020.default({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
    const validatorFor = (path: string, method: string, status: number) => {
      const responses = document.paths[path][method].responses;
      const response = responses[String(status)] ?? responses.default;
      const schema = JSON.parse(
        JSON.stringify(response.content['application/json'].schema).replaceAll('"#/components', '"doc#/components'),
      );
      return ajv.compile(schema);
    };
    const { call, post } = makeService({ rateLimit: { limit: 1000, windowSeconds: 60 } });
    const limited = makeService({ rateLimit: { limit: 1, windowSeconds: 60 } });
    await limited.call('/v1/pets');
    const gone = makeService({ now: () => Date.parse('2031-01-01T00:00:00Z') });
    const keyed = { headers: { 'idempotency-key': '"k"' } };
    const cases: Array<[string, string, () => Promise<Response>]> = [
      ['/pets', 'post', () => post({ name: 'Rex', categoryId: 1 }, keyed)],
      ['/pets', 'post', () => post({ name: 'Rex', categoryId: 1 }, keyed)],
      ['/pets', 'post', () => post({ name: 'Tom', categoryId: 1 }, keyed)],
      ['/pets', 'post', () => post({ name: 'Tom', categoryId: 1 }, { headers: { 'idempotency-key': '"' } })],
      ['/pets', 'get', () => limited.call('/v1/pets')],
      ['/pets/{petId}', 'get', () => gone.call('/v1/pets/1')],
      ['/pets', 'post', () => post({ name: 'Rex', categoryId: 1 })],
      ['/pets', 'post', () => post({ name: '', categoryId: 0 })],
      ['/pets', 'post', () => post('{')],
      ['/pets', 'get', () => call('/v1/pets?limit=1')],
      ['/pets', 'get', () => call('/v1/pets?limit=0')],
      ['/pets', 'get', () => call('/v1/pets', { key: 'wrong' })],
      ['/pets', 'post', () => call('/v1/pets', { method: 'PUT' })],
      ['/pets/{petId}', 'get', () => call('/v1/pets/1')],
      ['/pets/{petId}', 'get', () => call('/v1/pets/99')],
      ['/pets/{petId}', 'get', () => call('/v1/pets/x')],
    ];
    const statuses = new Set<number>();
    for (const [path, method, send] of cases) {
      const response = await send();
      statuses.add(response.status);
      // Every status an operation answers is described by its own entry; the default is for
      // methods the document does not list (a PUT's 405).
      const entry =
        document.paths[path][method].responses[String(response.status)] ??
        (response.status === 405 ? document.paths[path][method].responses.default : undefined);
      expect(entry, `${method} ${path} ${response.status}`).toBeDefined();
      // Every header it sent of those the service adds is one the document lists for that answer.
      for (const name of [
        'etag',
        'ratelimit',
        'ratelimit-policy',
        'retry-after',
        'idempotent-replayed',
        'x-content-type-options',
        'cache-control',
      ]) {
        if (response.headers.has(name)) {
          const described = Object.keys(entry.headers ?? {}).map((key) => key.toLowerCase());
          expect(described, `${method} ${path} ${response.status} ${name}`).toContain(name);
        }
      }
      const validate = validatorFor(path, method, response.status);
      const body = await response.json();
      expect(validate(body), `${method} ${path} ${response.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 405, 410, 422, 429]);
  });
});
