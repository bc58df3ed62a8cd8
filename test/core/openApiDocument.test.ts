/** The published OpenAPI document is valid, and real answers conform to it. */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { makeStore } from './helpers.js';

const documentOf = async () => {
  const { call } = makeStore();
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
    const { call, post } = makeStore();
    const cases: Array<[string, string, Promise<Response>]> = [
      ['/pets', 'post', post({ name: 'Rex', categoryId: 1 })],
      ['/pets', 'post', post({ name: '', categoryId: 0 })],
      ['/pets', 'post', post('{')],
      ['/pets', 'get', call('/v1/pets?limit=1')],
      ['/pets', 'get', call('/v1/pets?limit=0')],
      ['/pets', 'get', call('/v1/pets', { key: 'wrong' })],
      ['/pets', 'post', call('/v1/pets', { method: 'PUT' })],
      ['/pets/{petId}', 'get', call('/v1/pets/1')],
      ['/pets/{petId}', 'get', call('/v1/pets/2')],
      ['/pets/{petId}', 'get', call('/v1/pets/x')],
    ];
    for (const [path, method, pending] of cases) {
      const response = await pending;
      const validate = validatorFor(path, method, response.status);
      const body = await response.json();
      expect(validate(body), `${method} ${path} ${response.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });
});
