/** @module Where the service reports: the access log's lines, warnings and failures. */

/** One line of the access log: never a key, never a body. */
export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  /** How long the service took, in milliseconds, with sub-millisecond precision. */
  milliseconds: number;
  /**
   * The interface's name of what was asked (`listPets`, `createPet`, `getPet`,
   * `getOpenApiDocument`, `getReference`, `checkHealth`), or `undefined` for anything else
   * (an unknown path, another method, a preflight).
   */
  operation: string | undefined;
  /** The request's id, when the service gives ids (see `requestIds`). */
  requestId?: string;
  /** The calling key's name (its fingerprint when it has none), once authenticated; never the key. */
  key?: string;
}

/** Where the service reports; every member is optional. */
export interface PetServiceLogger {
  /** Called once per request, after the response is made. */
  access?(entry: AccessLogEntry): void;
  /** Notable events, such as the first deprecated call by a key. */
  warn?(message: string): void;
  /** Unexpected failures, with the error; the client only ever sees a bare 500. */
  error?(message: string, error: unknown): void;
}
