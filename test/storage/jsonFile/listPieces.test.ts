import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseListPieces } from '../../../storage/jsonFile/read/listPieces.js';

/** The text between a list's brackets, as `JSON.stringify` spaces it with `indent`, in bytes. */
const insideOf = (items: unknown[], indent?: number | string): Buffer => {
  const text = JSON.stringify(items, null, indent);
  return Buffer.from(text.slice(1, text.lastIndexOf(']')));
};

/** What `parseListPieces` makes of a whole list: its items, and how many pieces they came in; `undefined` when it gives up. */
const parsed = (inside: Buffer): { items: unknown[]; pieces: number } | undefined => {
  const items: unknown[] = [];
  let pieces = 0;
  const end = parseListPieces(inside, true, false, (piece) => {
    items.push(...piece);
    pieces++;
    return true;
  });
  return end === undefined ? undefined : { items, pieces };
};

describe('Parsing a list of objects a piece at a time', () => {
  it('Should cut a list however it is spaced between items, never inside a name that holds an item end', () => {
    // Every name holds `},`, so many pieces' last end falls inside a name and the one before it is tried.
    const items = Array.from({ length: 5_000 }, (_, at) => ({ id: at + 1, name: `Rex},{"id":${at}},`, status: 'available' }));
    for (const indent of [undefined, 2, '\t']) {
      const result = parsed(insideOf(items, indent));
      expect(result?.items).toEqual(items);
      expect(result!.pieces).toBeGreaterThan(3);
    }
  });

  it('Should give up on a list it cannot cut, and on one that is not valid, rather than misread it', () => {
    // More item ends inside one name than a piece tries, at every piece's end.
    const crowded = Array.from({ length: 3_000 }, (_, at) => ({ id: at + 1, name: '},'.repeat(60) }));
    expect(parsed(insideOf(crowded))).toBeUndefined();
    // Items that are not objects have no item ends to cut at.
    expect(parsed(insideOf(Array.from({ length: 30_000 }, (_, at) => at)))).toBeUndefined();
    const items = Array.from({ length: 3_000 }, (_, at) => ({ id: at + 1, name: `Animal ${at}` }));
    const inside = insideOf(items).toString();
    for (const damaged of [
      `${inside},`,
      `,${inside}`,
      inside.replace('},{"id":2000,', '},,{"id":2000,'),
      inside.replace('"id":2500', '"id":2500,'),
    ]) {
      expect(parsed(Buffer.from(damaged))).toBeUndefined();
    }
  });

  it('Should read any list of flat objects as JSON.parse does, or give up, never differently', () => {
    // Strings holding the texts a piece is cut at, and lists of many pieces (a piece is at most 64 KiB).
    const tricky = fc
      .array(fc.constantFrom('},', '},{', '"},{"', '\\', '}', ',', ']', 'Rex'), { maxLength: 4 })
      .map((parts) => parts.join(''));
    const item = fc.record({
      id: fc.nat(),
      name: fc.string({ unit: 'grapheme', maxLength: 80, size: 'max' }),
      note: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: tricky }),
    });
    let cut = 0;
    fc.assert(
      fc.property(
        fc.array(item, { minLength: 100, maxLength: 2_000, size: 'max' }),
        fc.constantFrom(undefined, 0, 1, 2, '\t', ' \r\n'),
        (items, indent) => {
          const inside = insideOf(items, indent);
          const result = parsed(inside);
          if (result !== undefined) expect(result.items).toEqual(JSON.parse(`[${inside}]`));
          if (result !== undefined && result.pieces > 1) cut++;
          // A list whose strings hold no item end is always read.
          if (!items.some(({ name, note }) => `${name}${note}`.includes('},'))) expect(result).toBeDefined();
        },
      ),
      { numRuns: 60 },
    );
    expect(cut).toBeGreaterThan(10);
  });
});
