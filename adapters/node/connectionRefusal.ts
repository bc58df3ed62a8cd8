/** @module The answer of a server out of room for another connection, made once, as bytes. */
import { AnimalStoreError } from '../../core/AnimalStoreError.js';
import { adapterErrorAnswer, rawErrorAnswer } from './adapterErrorAnswer.js';

/** The 503 a connection gets when the connection caps leave it no room, or when it is closed to make some. */
export const TOO_MANY_CONNECTIONS = new AnimalStoreError(
  'service_unavailable',
  'The server has as many connections open as it allows; try again in a moment, or reuse an open connection.',
  { headers: { 'retry-after': '1' } },
);

/** `TOO_MANY_CONNECTIONS` as it goes on the wire: built once, so refusing a flood costs one write each. */
export const TOO_MANY_CONNECTIONS_BYTES: Buffer = rawErrorAnswer(adapterErrorAnswer(TOO_MANY_CONNECTIONS));

/** The `clientError` code under which a connection closed to make room is answered `TOO_MANY_CONNECTIONS`. */
export const SHED_CODE = 'ERR_ANIMAL_STORE_SHED';
