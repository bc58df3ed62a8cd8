/** @module The service's OpenAPI 3.1 document, drawn from the schemas that validate requests. */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ErrorBody } from '../schemas/ErrorBody.js';
import { ListQuery } from '../schemas/ListQuery.js';
import { NewPet } from '../schemas/NewPet.js';
import { Pet, PetId } from '../schemas/Pet.js';
import { PetStatus } from '../schemas/PetStatus.js';
import { DEPRECATION, SUNSET } from './deprecation.js';

/** The interface version the document describes. */
export const INTERFACE_VERSION = '1.0.0';

/**
 * Converts a schema, failing loudly on anything JSON Schema cannot say. The one exception is
 * a `check` (the name's code-point bound), which carries its JSON Schema form as metadata.
 */
const schemaOf = (schema: v.GenericSchema, typeMode: 'input' | 'output' = 'output') =>
  toJsonSchema(schema, {
    target: 'draft-2020-12',
    typeMode,
    errorMode: 'throw',
    overrideAction: ({ valibotAction, jsonSchema }) => (valibotAction.type === 'check' ? jsonSchema : undefined),
  });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const errorResponse = (description: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref('Error') } },
});

const wwwAuthenticate = {
  'WWW-Authenticate': {
    description: 'Bearer realm="animal-store", with error="invalid_token" when a token was sent.',
    schema: { type: 'string' },
  },
};

const commonErrors = {
  '401': errorResponse('Missing or invalid API key.', wwwAuthenticate),
  '500': errorResponse('Unexpected failure; nothing was changed.'),
  // Every failure, whatever its status (405, 413, …), has an Error body.
  default: errorResponse('Any other failure: an Error body whose status equals the HTTP status.'),
};

const deprecationHeaders = {
  Deprecation: { description: `Always ${DEPRECATION} (RFC 9745).`, schema: { type: 'string' } },
  Sunset: { description: `Always ${SUNSET} (RFC 8594).`, schema: { type: 'string' } },
  Link: { description: 'The successor: <{base}/pets>; rel="successor-version".', schema: { type: 'string' } },
};

/** Builds the OpenAPI 3.1 document for a service whose operations live under `base`. */
export const createOpenApiDocument = (base: string): Record<string, unknown> => {
  const { properties: query } = schemaOf(ListQuery, 'input') as { properties: Record<string, object> };
  const queryParameter = (name: string, description: string) => ({
    name,
    in: 'query',
    required: false,
    description,
    schema: query[name],
  });

  return {
    openapi: '3.1.0',
    info: {
      title: 'Animal Store',
      version: INTERFACE_VERSION,
      description: "The catalogue of a store's animals: list, add and fetch animals.",
    },
    servers: [{ url: base }],
    security: [{ bearerAuth: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List all animals',
          description:
            'Animals in ascending id order, a page at a time. When more remain, a Link header with rel="next" points at the next page.',
          parameters: [
            queryParameter('limit', 'The most animals to return: 1 to 100, decimal digits, default 20.'),
            queryParameter('status', 'Only animals with this availability status.'),
            queryParameter('cursor', "Where the page starts, as given by the previous page's Link header."),
          ],
          responses: {
            '200': {
              description: 'A page of animals.',
              headers: {
                Link: { description: '<{base}/pets?limit=L&status=S&cursor=C>; rel="next", when more remain.', schema: { type: 'string' } },
              },
              content: { 'application/json': { schema: { type: 'array', items: ref('Pet') } } },
            },
            '400': errorResponse('A query parameter is not valid.'),
            ...commonErrors,
          },
        },
        post: {
          operationId: 'createPet',
          summary: 'Add an animal',
          requestBody: { required: true, content: { 'application/json': { schema: ref('NewPet') } } },
          responses: {
            '201': {
              description: 'The animal, with its new id; durable once this answer is sent.',
              headers: { Location: { description: '{base}/pets/{id}', schema: { type: 'string' } } },
              content: { 'application/json': { schema: ref('Pet') } },
            },
            '400': errorResponse('The body is not JSON, or not a valid NewPet.'),
            ...commonErrors,
            '413': errorResponse('The body is larger than 64 KiB.'),
            '415': errorResponse('The body is not application/json.'),
            '503': errorResponse('The animal could not be stored durably; nothing was stored.'),
          },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          summary: 'Get an animal',
          deprecated: true,
          description: 'Deprecated; removed on 5 December 2030. Use GET /pets with the status filter.',
          parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } }],
          responses: {
            '200': {
              description: 'The animal.',
              headers: deprecationHeaders,
              content: { 'application/json': { schema: ref('Pet') } },
            },
            '400': errorResponse('The petId is not an int64 in decimal digits.', deprecationHeaders),
            ...commonErrors,
            '404': errorResponse('No animal has this id.', deprecationHeaders),
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          security: [],
          responses: {
            '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } },
          },
        },
      },
    },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Pet: schemaOf(Pet),
        NewPet: schemaOf(NewPet, 'input'),
        PetStatus: schemaOf(PetStatus),
        PetId: { ...schemaOf(PetId), format: 'int64' },
        Error: schemaOf(ErrorBody),
      },
    },
  };
};
