/** @module The sync endpoints' part of the OpenAPI document. */

import { BEHIND_COUNTED_MAX, PULL_LIMIT_DEFAULT, PULL_LIMIT_MAX, PULL_WAIT_MAX, PUSH_MAX } from '../schemas/SyncSchemas.js';
import { MAX_UNUSED_LEASES } from '../sync/SyncStorage.js';

/** What the document's builder shares with this part: how it writes references and answers. */
export interface SyncPathsParts {
  ref(name: string): object;
  retryAfter: object;
  /** The headers of every successful authenticated answer. */
  answerHeaders: Record<string, unknown>;
  errorResponse(description: string, headers?: Record<string, unknown>): object;
  commonErrors: Record<string, object>;
}

/** The paths of the sync endpoints, relative to the base path. */
export const syncPaths = ({ ref, retryAfter, answerHeaders, errorResponse, commonErrors }: SyncPathsParts): Record<string, unknown> => {
  const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
  const unavailable = errorResponse('The storage could not make the change durable; nothing changed.', { 'Retry-After': retryAfter });
  const notHub = errorResponse('not_found: this server’s storage cannot sync, so it is no hub.');
  return {
    '/sync/leases': {
      post: {
        operationId: 'leaseIds',
        summary: 'Lease a block of ids to this key (sync)',
        description: `Gives the calling key the next 1,000 ids, durably, for a kiosk to give its own animals offline: ids above every id the hub holds or leased before. The body is empty or {}. A lost answer only wastes the block. A key holds at most ${MAX_UNUSED_LEASES} leased blocks from which nothing was pushed: past that the lease is refused (429) and nothing is stored. A kiosk (a server that syncs with a hub) refuses every lease with 409 sync_conflict. Needs the scope sync.`,
        tags: ['sync'],
        responses: {
          '201': { description: 'The block, first to last id included.', headers: answerHeaders, content: json('SyncLease') },
          '400': errorResponse('The body is not empty or {}.'),
          '404': notHub,
          '409': errorResponse('sync_conflict: this server is a kiosk, which leases no ids (only its hub does); nothing was stored.'),
          ...commonErrors,
          '429': errorResponse(
            `rate_limited: this key holds ${MAX_UNUSED_LEASES} leased blocks from which nothing was pushed (push from them first), or is over its rate limit; nothing was leased.`,
            { 'Retry-After': retryAfter },
          ),
          '503': unavailable,
        },
      },
    },
    '/sync/push': {
      post: {
        operationId: 'pushPets',
        summary: 'Store animals a kiosk made (sync)',
        description: `Stores up to ${PUSH_MAX} animals made at a kiosk, each with the id it was created with, in one durable write; ones stored already with the same fields are skipped, so a push may be repeated. The whole push is refused, nothing stored, when one id is not in a block leased to this key (403), is stored with other fields (409), or when this server is a kiosk, which takes no pushes (409).`,
        tags: ['sync'],
        requestBody: { required: true, content: json('SyncPush') },
        responses: {
          '200': {
            description: 'Durable: how many were new, how many present already.',
            headers: answerHeaders,
            content: json('SyncPushResult'),
          },
          '400': errorResponse('The body is not a valid push (malformed animals or ids, unknown fields, too many animals).'),
          '404': notHub,
          '409': errorResponse(
            'sync_conflict: an animal is stored with other fields, or this server is a kiosk (which takes no pushes); nothing was stored.',
          ),
          ...commonErrors,
          '403': errorResponse('forbidden: an id was not leased to this key, or the key lacks the scope sync; nothing was stored.'),
          '503': unavailable,
        },
      },
    },
    '/sync/pull': {
      get: {
        operationId: 'pullPets',
        summary: 'The animals after a checkpoint, in arrival order (sync)',
        description:
          'A feed of the catalogue in arrival order, as CouchDB’s _changes?since: send the checkpoint the last pull answered (0 or none at first). A caught-up pull answers no animals and the same checkpoint, at once or, with wait, as soon as an animal arrives (as CouchDB’s feed=longpoll). Checkpoints stay valid across hub restarts. Needs the scope sync; a pull waiting when its key is withdrawn ends with a 401.',
        tags: ['sync'],
        parameters: [
          {
            name: 'checkpoint',
            in: 'query',
            required: false,
            description: 'Where to continue: the checkpoint of the last answer; 0 for the start.',
            schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: `The most animals to return: 1 to ${PULL_LIMIT_MAX}, default ${PULL_LIMIT_DEFAULT}.`,
            schema: { type: 'integer', minimum: 1, maximum: PULL_LIMIT_MAX },
          },
          {
            name: 'wait',
            in: 'query',
            required: false,
            description: `Seconds to wait, when no animal follows the checkpoint, for one to arrive: 0 to ${PULL_WAIT_MAX}, default 0 (answer at once). The answer comes as soon as an animal arrives, else after wait seconds with no animals; earlier, with what there is, when the server stops.`,
            schema: { type: 'integer', minimum: 0, maximum: PULL_WAIT_MAX },
          },
        ],
        responses: {
          '200': { description: 'Animals and the checkpoint to send next.', headers: answerHeaders, content: json('SyncPull') },
          '400': errorResponse('A query parameter is not valid.'),
          '404': notHub,
          ...commonErrors,
        },
      },
    },
    '/sync/status': {
      get: {
        operationId: 'getSyncStatus',
        summary: 'This kiosk’s sync state',
        description:
          'Whether the hub was reachable at the last try, how many local creates wait to go up, and the last successful push and pull.',
        tags: ['sync'],
        responses: {
          '200': { description: 'The state.', headers: answerHeaders, content: json('SyncStatus') },
          '404': errorResponse('not_found: this server syncs with no hub.'),
          ...commonErrors,
        },
      },
    },
    '/sync/kiosks': {
      get: {
        operationId: 'listKiosks',
        summary: 'The fleet: every key that may sync, with what this hub saw of it',
        description: `For each API key in force with the scope sync: its name (its fingerprint when it has none), when it last leased, pushed and pulled here and the animals it pushed (since this hub started), the blocks of ids leased to it and how many hold no animal yet (from the storage, so across restarts), and how many animals arrived after the checkpoint of its last pull (counted up to ${BEHIND_COUNTED_MAX}). Needs a key with every scope.`,
        tags: ['sync'],
        responses: {
          '200': { description: 'The fleet.', headers: answerHeaders, content: json('SyncKiosks') },
          '404': notHub,
          ...commonErrors,
        },
      },
    },
  };
};
