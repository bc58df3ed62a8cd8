/** @module Where the journal's lines hold the text of keys, to read it back for the next whole write instead of encoding it again. */
import type { DeferredPart, JournalSpot, Scratch } from '../../durableFile/index.js';
import type { IdempotencyKeys } from '../../IdempotencyKeys.js';
import { CLOSE_BRACE, CLOSE_BRACKET, COMMA, NEWLINE, OPEN_BRACE, OPEN_BRACKET } from '../format/jsonBytes.js';
import type { KeysInChange } from '../format/PetChange.js';

/**
 * Keys' text in journal lines that follow each other: lines of one queue, appended to one
 * journal file (`generation`), each line's keys following the line before's in sequence. In
 * columns, 2 bytes a key and 16 a line until the next whole write, so every line with keys
 * is noted. (As an object a line cost about 270 bytes, so lines of fewer than 16 keys
 * were left out; on a fast disk most lines under load hold fewer, and encoding their keys
 * took most of a whole write's time in a flood of keyed creates.)
 */
class NotedLines {
  /** The first line not forgotten (a whole write holds the keys of those before). */
  first = 0;
  count = 0;
  /** For each line, the byte its first key's text starts at in the journal, and the sequence number after its last key. */
  offsets = new Float64Array(16);
  ends = new Float64Array(16);
  /** Each key's text length in bytes, by sequence number from `start` (see `MAX_NOTED_LENGTH`). */
  lengths = new Uint16Array(64);

  constructor(
    readonly queue: IdempotencyKeys,
    readonly generation: number,
    /** The sequence number of the first line's first key. */
    readonly start: number,
  ) {}

  /** The sequence number after the last line's last key. */
  get end(): number {
    return this.count === 0 ? this.start : this.ends[this.count - 1]!;
  }

  /** The sequence number of line `line`'s first key. */
  startOf(line: number): number {
    return line === 0 ? this.start : this.ends[line - 1]!;
  }

  /** Notes a line whose keys' texts, `lengths` bytes long, start at byte `offset`. */
  add(offset: number, lengths: readonly number[]): void {
    const keys = this.end - this.start;
    if (this.count === this.offsets.length) {
      this.offsets = grown(this.offsets, this.count + 1);
      this.ends = grown(this.ends, this.count + 1);
    }
    if (keys + lengths.length > this.lengths.length) this.lengths = grown(this.lengths, keys + lengths.length);
    this.lengths.set(lengths, keys);
    this.offsets[this.count] = offset;
    this.ends[this.count] = this.end + lengths.length;
    this.count++;
  }

  /** The first line not forgotten whose keys reach past `sequence` (`count` when none does): by halves, as a run may hold 100,000 lines. */
  lineAfter(sequence: number): number {
    let low = this.first;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.ends[middle]! > sequence) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** The line holding key `sequence`, among those not forgotten, or -1. */
  lineOf(sequence: number): number {
    const line = this.lineAfter(sequence);
    return line < this.count && this.startOf(line) <= sequence ? line : -1;
  }

  /** The byte after line `line`'s last key: its list's bracket. */
  endOf(line: number): number {
    let end = this.offsets[line]!;
    for (let key = this.startOf(line) - this.start; key < this.ends[line]! - this.start; key++) end += this.lengths[key]! + 1;
    return end - 1;
  }

  /** Lines `from` to `to` as lines of their own, copied out: these may be cut back or forgotten before a whole write reads them again. */
  group(from: number, to: number): NotedLines {
    const start = this.startOf(from);
    const group = new NotedLines(this.queue, this.generation, start);
    group.offsets = this.offsets.slice(from, to + 1);
    group.ends = this.ends.slice(from, to + 1);
    group.lengths = this.lengths.slice(start - this.start, this.ends[to]! - this.start);
    group.count = to - from + 1;
    return group;
  }
}

/** `array`, or a copy twice as long (at least `least`) holding its numbers. */
const grown = <T extends Float64Array | Uint16Array>(array: T, least: number): T => {
  const copy = new (array.constructor as new (length: number) => T)(Math.max(array.length * 2, least));
  copy.set(array);
  return copy;
};

/** The longest key text a line's notes can hold; a line with a longer one (none the service writes) is not noted, and its keys are encoded. */
const MAX_NOTED_LENGTH = 0xffff;

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
 * Where the keys each journal line holds lie in the journal, from the line's append until a
 * whole write holds them. A keyed create's key is encoded into its journal line; the next
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
  #runs: NotedLines[] = [];

  /** Notes the keys `start`, `start + 1`, … of `queue`, whose change `text` (laid out as `keysIn` says) was appended at `spot`. */
  noted(queue: IdempotencyKeys, start: number, text: string, keysIn: KeysInChange, spot: JournalSpot): void {
    if (keysIn.lengths.length === 0 || keysIn.lengths.some((length) => length > MAX_NOTED_LENGTH)) return;
    let offset = keysIn.start;
    const bytes = spot.length;
    // Counted in characters, the same as bytes unless a character takes more: an animal's
    // name before the keys is then measured in bytes; a key's text that is not ASCII is not noted.
    if (bytes !== text.length) {
      offset = Buffer.byteLength(text.slice(0, keysIn.start));
      if (bytes - offset !== text.length - keysIn.start) return;
    }
    let run = this.#runs.at(-1);
    if (!(run?.queue === queue && run.generation === spot.generation && run.end === start)) {
      run = new NotedLines(queue, spot.generation, start);
      this.#runs.push(run);
    }
    run.add(spot.offset + offset, keysIn.lengths);
  }

  /** Forgets the keys from sequence number `sequence` on, which are about to change (a line reaching past it, whole). */
  forgetFrom(sequence: number): void {
    for (let run = this.#runs.at(-1); run && run.end > sequence; run = this.#runs.at(-1)) {
      while (run.count > run.first && run.ends[run.count - 1]! > sequence) run.count--;
      if (run.count > run.first) return;
      this.#runs.pop();
    }
  }

  /** Forgets the keys before sequence number `sequence` (a whole write holds them now). */
  forgetBefore(sequence: number): void {
    while (this.#runs.length > 0 && this.#runs[0]!.end <= sequence) this.#runs.shift();
    const run = this.#runs[0];
    if (run) while (run.ends[run.first]! <= sequence) run.first++;
  }

  /** Forgets every key (the queue was replaced). */
  forget(): void {
    this.#runs = [];
  }

  /** The first key after `from` whose text a journal line holds, or `undefined`. */
  nextAfter(keys: IdempotencyKeys, from: number): number | undefined {
    for (const run of this.#runs) {
      const line = run.queue === keys ? run.lineAfter(from) : run.count;
      if (line < run.count) return Math.max(run.startOf(line), from);
    }
    return undefined;
  }

  /**
   * The keys from `from` on that the journal's lines hold, checked now to be there as
   * written (a megabyte or so read back) and copied by the whole write (see
   * KeyLinesInJournal), or `undefined` when no line noted holds key `from` or its bytes are
   * not there as written (the journal was emptied or replaced since); the lines it tried,
   * and those before them, are then forgotten, and their keys are left to be encoded.
   */
  async read(keys: IdempotencyKeys, from: number, read: ReadJournalBytes, scratch: Scratch): Promise<KeyLinesInJournal | undefined> {
    const run = this.#runs.find((candidate) => candidate.queue === keys && candidate.lineOf(from) !== -1);
    if (run === undefined) return undefined;
    // Lines that follow each other in sequence and in the same journal are read at once.
    const first = run.lineOf(from);
    let last = first;
    while (last + 1 < run.count && run.endOf(last + 1) - run.offsets[first]! <= READ_BYTES) last++;
    const group = run.group(first, last);
    const bytes = await readGroup(group, read, scratch);
    // Checked, not copied: the whole write reads and copies them again (a copy here took as long as that one).
    if (bytes === undefined || !copyLines(group, from, bytes)) {
      // The run may have been cut back or forgotten meanwhile: its lines are counted again.
      if (this.#runs.includes(run)) run.first = Math.min(Math.max(run.first, last + 1), run.count);
      if (run.first === run.count) this.#runs = this.#runs.filter((kept) => kept !== run);
      return undefined;
    }
    return {
      start: from,
      end: group.end,
      copy: (copyFrom, firstLine) => ({
        byteLength: linesLength(group, copyFrom) - (firstLine ? 1 : 0),
        async writeTo(whole) {
          const again = await readGroup(group, whole.readJournalBytes, whole.scratch);
          const lines = whole.scratch.made(linesLength(group, copyFrom));
          if (!again || !copyLines(group, copyFrom, again, lines)) throw new Error('its journal no longer holds the keys it held');
          await whole.write(firstLine ? lines.subarray(1) : lines);
        },
      }),
    };
  }
}

/** The bytes of a group's lines in the journal, from the byte before its first key (its list's bracket), or `undefined`. */
const readGroup = async (group: NotedLines, read: ReadJournalBytes, scratch: Scratch): Promise<Buffer | undefined> => {
  const rangeStart = group.offsets[0]! - 1;
  const length = group.endOf(group.count - 1) + 1 - rangeStart;
  return read(group.generation, rangeStart, length, scratch.read(length));
};

/** How many bytes the document's lines of a group's keys from `from` on take: each after a comma and a line break. */
const linesLength = (group: NotedLines, from: number): number => {
  let total = 0;
  for (let key = Math.max(0, from - group.start); key < group.end - group.start; key++) total += 2 + group.lengths[key]!;
  return total;
};

/**
 * Whether the keys' text from `from` on is where it was noted in `bytes` (read from the
 * byte before the group's first key), each key beginning and ending as a key does between
 * its line's separators; with `lines`, copied there as the document's lines too: each after
 * a comma and a line break (`lines` is exactly their length).
 */
const copyLines = (group: NotedLines, from: number, bytes: Buffer, lines?: Buffer): boolean => {
  const rangeStart = group.offsets[0]! - 1;
  let written = 0;
  for (let line = 0; line < group.count; line++) {
    let at = group.offsets[line]! - rangeStart;
    if (bytes[at - 1] !== OPEN_BRACKET) return false;
    const end = group.ends[line]!;
    for (let sequence = group.startOf(line); sequence < end; sequence++) {
      const length = group.lengths[sequence - group.start]!;
      if (sequence >= from) {
        if (bytes[at] !== OPEN_BRACE || bytes[at + length - 1] !== CLOSE_BRACE) return false;
        if (lines) {
          lines[written] = COMMA;
          lines[written + 1] = NEWLINE;
          bytes.copy(lines, written + 2, at, at + length);
          written += 2 + length;
        }
      }
      if (bytes[at + length] !== (sequence === end - 1 ? CLOSE_BRACKET : COMMA)) return false;
      at += length + 1;
    }
  }
  return true;
};
