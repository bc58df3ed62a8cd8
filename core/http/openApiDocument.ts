/** @module The service's OpenAPI 3.1 document, drawn from the schemas that validate requests. */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ErrorBody } from '../schemas/ErrorBody.js';
import { ListQuery } from '../schemas/ListQuery.js';
import { NewPet } from '../schemas/NewPet.js';
import { Pet, PetId } from '../schemas/Pet.js';
import { PetStatus } from '../schemas/PetStatus.js';
import { SyncKiosks, SyncLease, SyncPull, SyncPush, SyncPushResult, SyncStatus } from '../schemas/SyncSchemas.js';
import { DEPRECATION, SUNSET } from './deprecation.js';
import { describeDefaults } from './describeDefaults.js';
import { syncPaths } from './syncOpenApiPaths.js';

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
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/** The headers of every authenticated answer when rate limits are on. */
const rateLimitHeaders = { RateLimit: header('RateLimit'), 'RateLimit-Policy': header('RateLimit-Policy') };
/** The headers of every answer. */
const everyAnswer = {
  'X-Content-Type-Options': header('X-Content-Type-Options'),
  'Cache-Control': header('Cache-Control'),
  'X-Request-Id': header('X-Request-Id'),
};

/** An Error answer; after authentication it carries the rate-limit fields too (when they are on). */
const documentedError = (description: string, headers?: Record<string, unknown>, { authenticated = true } = {}) => ({
  description,
  headers: { ...everyAnswer, ...(authenticated ? rateLimitHeaders : {}), ...headers },
  content: { 'application/json': { schema: ref('Error') } },
});

const wwwAuthenticate = {
  'WWW-Authenticate': {
    description: 'Bearer realm="animal-store", with error="invalid_token" when a token was sent.',
    schema: { type: 'string' },
  },
};

const commonErrors = {
  '401': documentedError('Missing or invalid API key.', wwwAuthenticate, { authenticated: false }),
  '403': documentedError('forbidden: this API key lacks the scope the operation needs (read, create or sync); the message names it.'),
  '429': documentedError('This API key is over its rate limit (only when rate limits are on).', { 'Retry-After': header('Retry-After') }),
  '500': documentedError('Unexpected failure; nothing was changed.'),
  // Every failure, whatever its status (405, 413, …), has an Error body.
  default: documentedError('Any other failure: an Error body whose status equals the HTTP status.'),
};

/**
 * The 400 of a request whose head the server cannot read (a request target that is not a
 * path, a Host that is not a host): the Node server and the Express middleware answer it
 * before the service, on every path, public ones included.
 */
const malformedRequest = documentedError(
  'The request target or Host header cannot be read (answered by the server before the service).',
  undefined,
  { authenticated: false },
);

/** The operations' groups, declared once: an operation names one of them. */
const tags = [
  { name: 'pets', description: 'The catalogue: list, add and fetch animals.' },
  { name: 'reference', description: 'This document and the reference page drawn from it, public.' },
  { name: 'sync', description: "Kiosks and their hub: leased ids, pushes of kiosk-made animals, the feed, and a kiosk's state." },
];

/** A component schema's own reference in place of the same schema written out inside another. */
const withReferences = (schema: object, references: Record<string, string>) => {
  const { properties, ...rest } = schema as { properties: Record<string, unknown> };
  return { ...rest, properties: { ...properties, ...Object.fromEntries(Object.entries(references).map(([name, to]) => [name, ref(to)])) } };
};

const deprecationHeaders = {
  Deprecation: { description: `Always ${DEPRECATION} (RFC 9745).`, schema: { type: 'string' } },
  Sunset: { description: `Always ${SUNSET} (RFC 8594).`, schema: { type: 'string' } },
  Link: {
    description:
      'The successor and the deprecation notice: <{base}/pets>; rel="successor-version", <{base}/docs#deprecation>; rel="deprecation"; type="text/html".',
    schema: { type: 'string' },
  },
};

/** The headers of a conditional GET's answers (200 and 304). */
const cacheHeaders = { ETag: header('ETag'), ...everyAnswer, ...rateLimitHeaders };

const notModified = (headers: Record<string, unknown> = {}) => ({
  description: 'Not Modified: If-None-Match named the current ETag; no body.',
  headers: { ...cacheHeaders, ...headers },
});

/** Headers and parameters named once and referred to by every operation. */
const components = {
  headers: {
    'X-Content-Type-Options': { description: 'Always nosniff.', schema: { type: 'string', const: 'nosniff' } },
    'X-Request-Id': {
      description:
        "The request's id, when the server gives ids: the caller's X-Request-Id when it is 1 to 128 of A-Z a-z 0-9 . _ : -, else a new one.",
      schema: { type: 'string' },
    },
    'Cache-Control': {
      description: 'private, no-cache on successful authenticated answers (revalidate with If-None-Match); no-store on errors.',
      schema: { type: 'string' },
    },
    ETag: { description: 'A strong entity tag of the answer (body and Link); send it back in If-None-Match.', schema: { type: 'string' } },
    'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
    RateLimit: {
      description: 'The available quota and the seconds until it is restored, as "default";r=R;t=T (draft-ietf-httpapi-ratelimit-headers).',
      schema: { type: 'string' },
    },
    'RateLimit-Policy': {
      description: 'The quota per API key, as "default";q=Q;w=W: Q requests per W seconds (draft-ietf-httpapi-ratelimit-headers).',
      schema: { type: 'string' },
    },
    'Idempotent-Replayed': {
      description: 'true when the answer replays the first answer to this Idempotency-Key; nothing new was stored.',
      schema: { type: 'string', const: 'true' },
    },
  },
  parameters: {
    'Idempotency-Key': {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'Makes the create safe to retry (draft-ietf-httpapi-idempotency-key-header): a Structured Field String of 1 to 255 visible ASCII characters, such as "8e03978e-40d5-43e8" (a bare key without quotes is accepted too). Scoped to the API key, kept 24 hours. A retry with the same key and payload answers as the first request did; another payload is a 422; a retry while the first is still in flight is a 409.',
      schema: { type: 'string', minLength: 1, maxLength: 257 },
    },
    'If-None-Match': {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag of the copy the client has; when it is still current the answer is 304 without a body.',
      schema: { type: 'string' },
    },
  },
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
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'animal-store contributors' },
    },
    servers: [{ url: base }],
    security: [{ bearerAuth: [] }],
    tags,
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List all animals',
          tags: ['pets'],
          description:
            'Animals in the order they arrived in this catalogue (ascending id order for a catalogue that never syncs), a page at a time. When more remain, a Link header with rel="next" points at the next page.',
          parameters: [
            queryParameter('limit', 'The most animals to return: 1 to 100, decimal digits, default 20.'),
            { ...queryParameter('status', 'Only animals with this availability status.'), schema: ref('PetStatus') },
            queryParameter('cursor', "Where the page starts, as given by the previous page's Link header."),
            parameter('If-None-Match'),
          ],
          responses: {
            '200': {
              description: 'A page of animals.',
              headers: {
                ...cacheHeaders,
                Link: { description: '<{base}/pets?limit=L&status=S&cursor=C>; rel="next", when more remain.', schema: { type: 'string' } },
              },
              content: { 'application/json': { schema: { type: 'array', items: ref('Pet') } } },
            },
            '304': notModified({ Link: { description: 'As on the 200.', schema: { type: 'string' } } }),
            '400': documentedError('A query parameter is not valid.'),
            ...commonErrors,
          },
        },
        post: {
          operationId: 'createPet',
          summary: 'Add an animal',
          tags: ['pets'],
          description:
            'Stores a new animal and gives it the next id; the answer comes once it is durable. With an Idempotency-Key, a retry of the same create stores nothing more and gets the first answer again.',
          parameters: [parameter('Idempotency-Key')],
          requestBody: { required: true, content: { 'application/json': { schema: ref('NewPet') } } },
          responses: {
            '201': {
              description:
                'The animal, with its new id; durable once this answer is sent. A replay (same Idempotency-Key and payload) is this same answer.',
              headers: {
                Location: { description: '{base}/pets/{id}', schema: { type: 'string' } },
                'Idempotent-Replayed': header('Idempotent-Replayed'),
                ...everyAnswer,
                ...rateLimitHeaders,
              },
              content: { 'application/json': { schema: ref('Pet') } },
            },
            '400': documentedError(
              'The body is not JSON, or not a valid NewPet, or the Idempotency-Key header is malformed (or missing where required).',
            ),
            ...commonErrors,
            '409': documentedError('idempotency_conflict: the first request with this Idempotency-Key is still in flight.', {
              'Retry-After': header('Retry-After'),
            }),
            '413': documentedError('The body is larger than 64 KiB.'),
            '415': documentedError('The body is not application/json, or has a Content-Encoding other than identity.'),
            '422': documentedError('idempotency_key_reused: this Idempotency-Key was used with another payload.'),
            '503': documentedError('The animal could not be stored durably; nothing was stored.', { 'Retry-After': header('Retry-After') }),
          },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          summary: 'Get an animal',
          tags: ['pets'],
          deprecated: true,
          description: 'Deprecated; removed on 5 December 2030, after which it answers 410 Gone. Use GET /pets with the status filter.',
          parameters: [
            { name: 'petId', in: 'path', required: true, schema: { type: 'integer', format: 'int64' } },
            parameter('If-None-Match'),
          ],
          responses: {
            '200': {
              description: 'The animal.',
              headers: { ...cacheHeaders, ...deprecationHeaders },
              content: { 'application/json': { schema: ref('Pet') } },
            },
            '304': notModified(deprecationHeaders),
            '400': documentedError('The petId is not an int64 in decimal digits.', deprecationHeaders),
            ...commonErrors,
            '404': documentedError('No animal has this id.', deprecationHeaders),
            '410': documentedError('gone: the operation was removed on its Sunset date, 5 December 2030.', deprecationHeaders),
          },
        },
      },
      ...syncPaths({
        ref,
        retryAfter: header('Retry-After'),
        answerHeaders: { ...everyAnswer, ...rateLimitHeaders },
        errorResponse: documentedError,
        commonErrors,
      }),
      '/docs': {
        get: {
          operationId: 'getReference',
          summary: 'This reference, for people',
          tags: ['reference'],
          description: 'An HTML page drawn from this document, with the deprecation notice at #deprecation.',
          security: [],
          responses: {
            '200': { description: 'The reference page.', content: { 'text/html': { schema: { type: 'string' } } } },
            '400': malformedRequest,
          },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApiDocument',
          summary: 'This document',
          tags: ['reference'],
          description: 'This OpenAPI 3.1 document, for code generators and API tools; public, as the reference page is.',
          security: [],
          responses: {
            '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: { type: 'object' } } } },
            '400': malformedRequest,
          },
        },
      },
    },
    components: {
      ...components,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      schemas: {
        // An animal's id and status are the components below, by reference, as generators name them.
        Pet: withReferences(schemaOf(Pet), { id: 'PetId', status: 'PetStatus' }),
        // A request body: its defaults said in words, so that generators keep `status` optional.
        NewPet: describeDefaults(schemaOf(NewPet, 'input')),
        PetStatus: schemaOf(PetStatus),
        PetId: { ...schemaOf(PetId), format: 'int64' },
        Error: schemaOf(ErrorBody),
        SyncLease: schemaOf(SyncLease),
        SyncPush: schemaOf(SyncPush, 'input'),
        SyncPushResult: schemaOf(SyncPushResult),
        SyncPull: schemaOf(SyncPull),
        SyncStatus: schemaOf(SyncStatus),
        SyncKiosks: schemaOf(SyncKiosks),
      },
    },
  };
};
