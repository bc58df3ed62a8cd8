/** @module Where the journal's lines hold the text of keys, to read it back for the next whole write instead of encoding it again. */
import type { DeferredPart, JournalSpot, Scratch } from '../../durableFile/index.js';
import type { IdempotencyKeys } from '../../IdempotencyKeys.js';
import { CLOSE_BRACE, CLOSE_BRACKET, COMMA, NEWLINE, OPEN_BRACE, OPEN_BRACKET } from '../format/jsonBytes.js';
import type { KeysInChange } from '../format/PetChange.js';

/** The keys of one journal line: their sequence numbers, and where their text lies in the journal. */
interface KeysInJournal {
  queue: IdempotencyKeys;
  start: number;
  end: number;
  generation: number;
  /** The byte the first key's text starts at; each next one starts after the one before and a comma. */
  offset: number;
  lengths: readonly number[];
}

/**
 * Lines of fewer keys are not noted: noting a line costs about 270 bytes of memory until
 * the next whole write (for a kiosk's creates, one key a line, days away), worth it only
 * where a line holds the keys of many creates, as under load (about 17 bytes a key at 16 to
 * 45 keys a line), where the copy saves the most.
 */
const FEWEST_KEYS_NOTED = 16;

/** Reads bytes the journal holds (see DurableTextFile.readJournalBytes), into `into` when it is large enough. */
export type ReadJournalBytes = (generation: number, offset: number, length: number, into?: Buffer) => Promise<Buffer | undefined>;

/**
 * Keys' lines as the document lays them out, found in the journal: keys `start` to `end`,
 * whose lines `copy` makes as a whole write runs (from key `from` on, the first without its
 * comma when it is the document's first line), reading the journal again.
 */
export interface KeyLinesInJournal {
  start: number;
  end: number;
  copy(from: number, first: boolean): DeferredPart;
}

/** How many bytes of the journal one read takes at most. */
const READ_BYTES = 1024 * 1024;

/**
 * Where the keys each journal line of many keys holds lie in the journal, from the line's
 * append until a whole write holds them. A keyed create's key is encoded into its journal line; the next
 * whole write copies that text into the document's line for the key (a key is written the
 * same way in both: `keyJson`) instead of encoding it a second time, which cost a keyed
 * create about as much as its journal line did.
 *
 * Only bytes this process appended to the journal it still writes are read (a journal
 * emptied or replaced since is another generation), and each key's text is checked to
 * begin and end as a key's does, between the separators of its line; anything else is left
 * to be encoded.
 */
export class JournalKeys {
  #lines: KeysInJournal[] = [];

  /** Notes the keys `start`, `start + 1`, … of `queue`, whose change `text` (laid out as `keysIn` says) was appended at `spot`. */
  noted(queue: IdempotencyKeys, start: number, text: string, keysIn: KeysInChange, spot: JournalSpot): void {
    const count = keysIn.lengths.length;
    if (count < FEWEST_KEYS_NOTED) return;
    let offset = keysIn.start;
    const bytes = spot.length;
    // Counted in characters, the same as bytes unless a character takes more: an animal's
    // name before the keys is then measured in bytes; a key's text that is not ASCII is not noted.
    if (bytes !== text.length) {
      offset = Buffer.byteLength(text.slice(0, keysIn.start));
      if (bytes - offset !== text.length - keysIn.start) return;
    }
    this.#lines.push({
      queue,
      start,
      end: start + count,
      generation: spot.generation,
      offset: spot.offset + offset,
      lengths: keysIn.lengths,
    });
  }

  /** Forgets the keys from sequence number `sequence` on, which are about to change. */
  forgetFrom(sequence: number): void {
    while ((this.#lines.at(-1)?.end ?? 0) > sequence) this.#lines.pop();
  }

  /** Forgets the keys before sequence number `sequence` (a whole write holds them now). */
  forgetBefore(sequence: number): void {
    let held = 0;
    while (held < this.#lines.length && this.#lines[held]!.end <= sequence) held++;
    if (held > 0) this.#lines = this.#lines.slice(held);
  }

  /** Forgets every key (the queue was replaced). */
  forget(): void {
    this.#lines = [];
  }

  /** The first key after `from` whose text a journal line holds, or `undefined`. */
  nextAfter(keys: IdempotencyKeys, from: number): number | undefined {
    for (const line of this.#lines) if (line.queue === keys && line.end > from) return Math.max(line.start, from);
    return undefined;
  }

  /**
   * The keys from `from` on that the journal's lines hold, checked now to be there as
   * written (a megabyte or so read back) and copied again by the whole write (see
   * KeyLinesInJournal), or `undefined` when no line noted holds key `from` or its bytes are
   * not there as written (the journal was emptied or replaced since); the lines it tried
   * are then forgotten, and their keys are left to be encoded.
   */
  async read(keys: IdempotencyKeys, from: number, read: ReadJournalBytes, scratch: Scratch): Promise<KeyLinesInJournal | undefined> {
    const first = this.#lines.findIndex((line) => line.queue === keys && line.start <= from && line.end > from);
    if (first === -1) return undefined;
    // Lines that follow each other in sequence and in the same journal are read at once.
    let last = first;
    while (
      last + 1 < this.#lines.length &&
      this.#lines[last + 1]!.start === this.#lines[last]!.end &&
      this.#lines[last + 1]!.generation === this.#lines[first]!.generation &&
      end(this.#lines[last + 1]!) - this.#lines[first]!.offset <= READ_BYTES
    ) {
      last++;
    }
    const group = this.#lines.slice(first, last + 1);
    const bytes = await readGroup(group, read, scratch);
    if (bytes === undefined || copyLines(group, from, bytes, scratch.made(linesLength(group, from))) === undefined) {
      this.#lines = this.#lines.filter((line) => !group.includes(line));
      return undefined;
    }
    return {
      start: from,
      end: group.at(-1)!.end,
      copy: (copyFrom, firstLine) => ({
        byteLength: linesLength(group, copyFrom) - (firstLine ? 1 : 0),
        async writeTo(whole) {
          const again = await readGroup(group, whole.readJournalBytes, whole.scratch);
          const lines = again && copyLines(group, copyFrom, again, whole.scratch.made(linesLength(group, copyFrom)));
          if (lines === undefined) throw new Error('its journal no longer holds the keys it held');
          await whole.write(firstLine ? lines.subarray(1) : lines);
        },
      }),
    };
  }
}

/** The bytes of a group's lines in the journal, from the byte before its first key (its list's bracket), or `undefined`. */
const readGroup = async (group: readonly KeysInJournal[], read: ReadJournalBytes, scratch: Scratch): Promise<Buffer | undefined> => {
  const rangeStart = group[0]!.offset - 1;
  const length = end(group.at(-1)!) + 1 - rangeStart;
  return read(group[0]!.generation, rangeStart, length, scratch.read(length));
};

/** How many bytes the document's lines of a group's keys from `from` on take: each after a comma and a line break. */
const linesLength = (group: readonly KeysInJournal[], from: number): number => {
  let total = 0;
  for (const { start, lengths } of group) {
    for (let key = Math.max(0, from - start); key < lengths.length; key++) total += 2 + lengths[key]!;
  }
  return total;
};

/** The byte after a line's last key. */
const end = ({ offset, lengths }: KeysInJournal): number => offset + lengths.reduce((sum, length) => sum + length + 1, 0) - 1;

/**
 * The keys' text from `from` on, read in `bytes` (from the byte before the group's first
 * key), as the document's lines: each after a comma and a line break, into `lines` (exactly
 * their length). `undefined` when a key's text is not where it was noted.
 */
const copyLines = (group: readonly KeysInJournal[], from: number, bytes: Buffer, lines: Buffer): Buffer | undefined => {
  const rangeStart = group[0]!.offset - 1;
  let written = 0;
  for (const { start, offset, lengths } of group) {
    let at = offset - rangeStart;
    if (bytes[at - 1] !== OPEN_BRACKET) return undefined;
    for (let key = 0; key < lengths.length; key++) {
      const length = lengths[key]!;
      if (start + key >= from) {
        if (bytes[at] !== OPEN_BRACE || bytes[at + length - 1] !== CLOSE_BRACE) return undefined;
        lines[written] = COMMA;
        lines[written + 1] = NEWLINE;
        bytes.copy(lines, written + 2, at, at + length);
        written += 2 + length;
      }
      if (bytes[at + length] !== (key === lengths.length - 1 ? CLOSE_BRACKET : COMMA)) return undefined;
      at += length + 1;
    }
  }
  return lines;
};
