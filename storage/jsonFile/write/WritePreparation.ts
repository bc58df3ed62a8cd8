/** @module Readies, in the background, the bytes of what a data file already holds (found in the file, or encoded), so its first write costs what later ones cost. */

import type { PetFileContent } from '../format/PetFileContent.js';
import type { ReadOwnBytes } from './listLines.js';
import type { PetFileSerializer } from './PetFileSerializer.js';

/**
 * Runs the serialiser's `prepare` over the current content after opening and again after
 * each reload, a chunk per turn of the event loop, finding in the file (`readOwnBytes`) the
 * animals it holds; a reload or `stop` abandons the preparation of the content it replaced.
 */
export class WritePreparation {
  readonly #serializer: PetFileSerializer;
  readonly #content: () => PetFileContent;
  readonly #readOwnBytes: ReadOwnBytes;
  /** Bumped when the content is replaced, which stops preparing bytes of the old content. */
  #generation = 0;
  #running = false;

  constructor(serializer: PetFileSerializer, content: () => PetFileContent, readOwnBytes: ReadOwnBytes) {
    this.#serializer = serializer;
    this.#content = content;
    this.#readOwnBytes = readOwnBytes;
  }

  /** Starts preparing the current content. */
  start(): void {
    this.#running = true;
    this.#prepare();
  }

  /** The content was replaced: prepare the new one instead, if running. */
  replaced(): void {
    this.#generation++;
    if (this.#running) this.#prepare();
  }

  /** Stops preparing. */
  stop(): void {
    this.#running = false;
    this.#generation++;
  }

  #prepare(): void {
    const generation = this.#generation;
    void this.#serializer.prepare(this.#content(), () => !this.#running || generation !== this.#generation, {
      readOwnBytes: this.#readOwnBytes,
    });
  }
}
