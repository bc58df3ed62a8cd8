/**
 * The OpenAPI document as code generators read it: a request body's optional fields stay
 * optional (no `default` for a generator to promote to required), answers keep theirs required.
 */
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { describeDefaults } from '../../../core/http/describeDefaults.js';
import { makeService } from '../helpers.js';

const documentOf = async () => {
  const { call } = makeService();
  return (await (await call('/v1/openapi.json', { key: null })).json()) as any;
};

/** The schema a `$ref` names, or the schema itself. */
const resolve = (document: any, schema: any) =>
  schema.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

describe('the OpenAPI document, as code generators read it', () => {
  it('gives no optional field of a request body a default, and says the default in words', async () => {
    const document = await documentOf();
    const bodies = Object.values(document.paths).flatMap((item: any) =>
      Object.values(item).flatMap((operation: any) =>
        Object.values(operation.requestBody?.content ?? {}).map((media: any) => resolve(document, media.schema)),
      ),
    );
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) {
      for (const [name, property] of Object.entries<any>(body.properties ?? {})) {
        if (!body.required?.includes(name)) expect(property, name).not.toHaveProperty('default');
      }
    }
    const { NewPet } = document.components.schemas;
    expect(NewPet.required).not.toContain('status');
    expect(NewPet.properties.status).toMatchObject({ enum: ['available', 'pending', 'sold'] });
    expect(NewPet.properties.status.description).toContain('"available" when left out');
  });

  it('keeps every field of an animal required in answers', async () => {
    const { Pet } = (await documentOf()).components.schemas;
    expect(Pet.required).toEqual(['id', 'name', 'categoryId', 'status']);
  });

  it('makes openapi-typescript (default settings) type status as optional in a create and required in an animal', async () => {
    const types = astToString(await openapiTS(await documentOf()));
    const block = (name: string) => types.slice(types.indexOf(`        ${name}: {`)).split('\n        };')[0];
    expect(block('NewPet')).toMatch(/\n\s+status\?: "available" \| "pending" \| "sold";/);
    // An animal names the shared PetStatus schema: required, and that schema is the enum.
    expect(block('Pet')).toMatch(/\n\s+status: components\["schemas"\]\["PetStatus"\];/);
    expect(types).toMatch(/\n\s+PetStatus: "available" \| "pending" \| "sold";/);
  });

  it("keeps a required field's default and appends to an existing description", () => {
    const schema = {
      properties: { a: { type: 'string', default: 'x', description: 'An a.' }, b: { type: 'integer', default: 1 } },
      required: ['b'],
    };
    expect(describeDefaults(schema).properties).toEqual({
      a: { type: 'string', description: 'An a. Optional; "x" when left out.' },
      b: { type: 'integer', default: 1 },
    });
  });
});
