/**
 * @module Where a large data file's two lists lie and what its small fields hold, its fields
 * in any order and any spacing, found by reading its ends and seeking the lists' names, not
 * by reading the lists.
 */
import type { FileReading } from '../../durableFile/index.js';
import { CLOSE_BRACKET, COMMA, isSpacing, lastUnspacedBefore, listStartAfter, OPEN_BRACE } from '../format/jsonBytes.js';

/** A list's items: from after its `[` to its `]`, in bytes from the file's start. */
export interface ListBytes {
  start: number;
  end: number;
}

/** Where a data file's lists lie, and its other fields, parsed. */
export interface PetFileOutline {
  /** The fields beside the lists (`format`, `nextId`, and `sync` when there is one), parsed, not yet checked. */
  fields: Record<string, unknown>;
  pets: ListBytes;
  keys: ListBytes;
}

const PETS_FIELD = Buffer.from('"pets"');
const KEYS_FIELD = Buffer.from('"idempotencyKeys"');

/**
 * The only fields beside the two lists. With any other, or a list's name again (`"pets":
 * null` after the keys, which JSON's last-one-wins would make the file's), the file is read
 * the usual way, which names the problem.
 */
const SMALL_FIELDS = new Set(['format', 'nextId', 'sync']);

/** How far a field's name may lie from the punctuation around it, spacing included. */
const SPACING_BYTES = 64;

/** How many `]` a list's end is sought among, from the fields after it back: a `sync` part holds a few lists of its own. */
const LIST_ENDS_TRIED = 16;

/** The UTF-8 byte-order mark a file may start with. */
const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);

/** `text` without JSON's spacing at either end (a string's `trim` takes more: a no-break space, a byte-order mark). */
const trimSpacing = (text: string): string => text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');

/**
 * The fields `text` holds, written between two of a file's parts: after its `{` (`first`:
 * nothing, or fields and a comma), between its two lists (a comma, or a comma, fields and a
 * comma), or after its last list (`last`: its `}`, or a comma, fields and its `}`); any
 * spacing. `undefined` when it holds anything else: a cut that fell inside a list or an
 * object leaves its text unbalanced, so no wrong cut parses.
 */
const fieldsBetween = (text: string, place: 'first' | 'between' | 'last'): Record<string, unknown> | undefined => {
  let inner = trimSpacing(text);
  if (place === 'last') {
    if (!inner.endsWith('}')) return undefined;
    inner = trimSpacing(inner.slice(0, -1));
  }
  if (place !== 'first') {
    if (inner === '' && place === 'last') return {};
    if (!inner.startsWith(',')) return undefined;
    inner = trimSpacing(inner.slice(1));
  }
  if (inner === '') return place === 'last' ? undefined : {};
  if (place !== 'last') {
    if (!inner.endsWith(',')) return undefined;
    inner = trimSpacing(inner.slice(0, -1));
    if (inner === '') return undefined;
  }
  let fields: unknown;
  try {
    fields = JSON.parse(`{${inner}}`);
  } catch {
    return undefined;
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) return undefined;
  return Object.keys(fields).every((name) => SMALL_FIELDS.has(name)) ? (fields as Record<string, unknown>) : undefined;
};

/**
 * Where the list named by the field at `at` in `bytes` starts (after its `[`), when the field
 * follows a `{` or a comma and a colon and the `[` follow it; -1 when not.
 */
const listAfterField = (bytes: Uint8Array, at: number, name: Buffer): number => {
  const before = lastUnspacedBefore(bytes, at);
  if (bytes[before] !== COMMA && bytes[before] !== OPEN_BRACE) return -1;
  const opening = listStartAfter(bytes, at + name.byteLength);
  return opening === -1 ? -1 : opening + 1;
};

/**
 * The first (`backwards`: the last) field named `name` between bytes `from` and `to` whose
 * value is a list, sought a chunk at a time: where its name starts and its items do.
 */
const seekField = async (
  file: FileReading,
  name: Buffer,
  range: { from: number; to: number; backwards: boolean },
  chunk: Buffer,
): Promise<{ field: number; items: number } | undefined> => {
  const near = Buffer.allocUnsafe(2 * SPACING_BYTES + name.byteLength);
  const { from, to, backwards } = range;
  // Each chunk overlaps the one before it, so a name across two chunks is found.
  const step = chunk.byteLength - name.byteLength + 1;
  for (let done = 0; done < to - from; done += step) {
    const start = backwards ? Math.max(from, to - done - chunk.byteLength) : from + done;
    const length = Math.min(chunk.byteLength, to - start, backwards ? to - done - start : chunk.byteLength);
    if (length < name.byteLength) return undefined;
    const bytes = await file.bytes(start, length, chunk);
    let at = backwards ? bytes.lastIndexOf(name) : bytes.indexOf(name);
    while (at !== -1) {
      // What is around the name, from the chunk when it holds all of it (a key or a name with
      // the list's name as its text is met once a key, not read again), else read apart.
      const inChunk = at >= SPACING_BYTES && at + name.byteLength + SPACING_BYTES <= bytes.byteLength;
      const nearFrom = inChunk ? start : Math.max(0, start + at - SPACING_BYTES);
      const around = inChunk ? bytes : await file.bytes(nearFrom, near.byteLength, near);
      const items = listAfterField(around, start + at - nearFrom, name);
      if (items !== -1) return { field: start + at, items: nearFrom + items };
      if (backwards && at === 0) break;
      at = backwards ? bytes.lastIndexOf(name, at - 1) : bytes.indexOf(name, at + 1);
    }
  }
  return undefined;
};

/**
 * Where the list whose items start at `items` ends (its `]`) before byte `to`, and the fields
 * between that end and `to` (`place`: before the other list's name, or the file's end),
 * sought among the last `]` before `to`; `undefined` when none leaves a valid stretch of
 * fields.
 */
const listEndBefore = async (
  file: FileReading,
  items: number,
  to: number,
  place: 'between' | 'last',
  chunk: Buffer,
): Promise<{ end: number; fields: Record<string, unknown> } | undefined> => {
  const start = Math.max(items, to - chunk.byteLength);
  const bytes = await file.bytes(start, to - start, chunk);
  if (bytes.byteLength < to - start) return undefined;
  let end = bytes.lastIndexOf(CLOSE_BRACKET);
  for (let tried = 0; end !== -1 && tried < LIST_ENDS_TRIED; tried++) {
    const fields = fieldsBetween(bytes.toString('utf8', end + 1), place);
    if (fields) return { end: start + end, fields };
    end = end === 0 ? -1 : bytes.lastIndexOf(CLOSE_BRACKET, end - 1);
  }
  return undefined;
};

/**
 * Where a data file's animals' and keys' lists lie, and its other fields, in whatever order
 * its fields come (as the serialiser writes them, or sorted, as `jq -S`, Go or Python's
 * `sort_keys` write them, or any other) and however spaced. Only the file's ends and the
 * lists' names are read: the list that comes first is found in the file's first chunk, the
 * other sought across the keys (from the file's end when they come last, from their start
 * when first), and each list's end among the `]` before the fields after it. `undefined`
 * for a file laid out otherwise (its first list beyond its first chunk, fields of over a
 * chunk between or after the lists, a field that is neither list nor a small one, a list
 * missing: format 2 asks for both). A name found inside a list's items or a `sync` part
 * leaves a stretch of fields that does not parse, or a list that does not, so the caller,
 * which parses each list, then reads the file the usual way.
 */
export const outlinePetFile = async (file: FileReading, chunk: Buffer): Promise<PetFileOutline | undefined> => {
  const head = await file.bytes(0, Math.min(file.size, chunk.byteLength), chunk);
  let opening = head.subarray(0, BYTE_ORDER_MARK.byteLength).equals(BYTE_ORDER_MARK) ? BYTE_ORDER_MARK.byteLength : 0;
  while (isSpacing(head[opening])) opening++;
  if (head[opening] !== OPEN_BRACE) return undefined;
  // The first list: the earlier of the two names followed by a list.
  const firstOf = (name: Buffer) => {
    for (let at = head.indexOf(name, opening); at !== -1; at = head.indexOf(name, at + 1)) {
      const items = listAfterField(head, at, name);
      if (items !== -1) return { field: at, items };
    }
    return undefined;
  };
  const petsFirst = firstOf(PETS_FIELD);
  const keysFirst = firstOf(KEYS_FIELD);
  const petsLead = petsFirst !== undefined && (keysFirst === undefined || petsFirst.field < keysFirst.field);
  const first = petsLead ? petsFirst : keysFirst;
  if (first === undefined) return undefined;
  const before = fieldsBetween(head.toString('utf8', opening + 1, first.field), 'first');
  if (!before) return undefined;
  // The second list: the keys sought back from the file's end, the animals on from the keys' start.
  const second = petsLead
    ? await seekField(file, KEYS_FIELD, { from: first.items, to: file.size, backwards: true }, chunk)
    : await seekField(file, PETS_FIELD, { from: first.items, to: file.size, backwards: false }, chunk);
  if (!second) return undefined;
  const firstEnd = await listEndBefore(file, first.items, second.field, 'between', chunk);
  if (!firstEnd) return undefined;
  const secondEnd = await listEndBefore(file, second.items, file.size, 'last', chunk);
  if (!secondEnd) return undefined;
  const fields = { ...before, ...firstEnd.fields, ...secondEnd.fields };
  const firstList = { start: first.items, end: firstEnd.end };
  const secondList = { start: second.items, end: secondEnd.end };
  return petsLead ? { fields, pets: firstList, keys: secondList } : { fields, pets: secondList, keys: firstList };
};
