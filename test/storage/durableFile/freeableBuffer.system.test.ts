import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, spawnNode } from '../../support/nodeProcess.js';

const MIB = 1024 * 1024;

/** Fills 8 freeable buffers of 8 MiB, frees them, and prints how RSS rose and fell, and whether their views are empty. */
const MEASURE = `
import { freeableBuffer, freeBuffer } from ${JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'storage/durableFile/freeableBuffer.ts')).href)};
const before = process.memoryUsage.rss();
const buffers = Array.from({ length: 8 }, () => freeableBuffer(${8 * MIB}).fill(7));
const held = process.memoryUsage.rss();
const filled = buffers.every((bytes) => bytes[bytes.byteLength - 1] === 7);
for (const bytes of buffers) freeBuffer(bytes);
const after = process.memoryUsage.rss();
const emptied = filled && buffers.every((bytes) => bytes.byteLength === 0 && bytes[0] === undefined);
console.log(JSON.stringify({ rise: held - before, drop: held - after, emptied }));
`;

describe('freeableBuffer', () => {
  it("Should give a freed buffer's memory back to the system at once, with no collection", async () => {
    // In a process of its own: in the suite's, a collection that the allocation sets off
    // frees earlier tests' garbage meanwhile, and RSS says nothing of these buffers alone.
    const measured = spawnNode(['--import', 'tsx', '--input-type=module', '-e', MEASURE]);
    expect(await measured.exited).toEqual({ code: 0, signal: null });
    const { rise, drop, emptied } = JSON.parse(measured.stdout());
    expect(rise).toBeGreaterThan(56 * MIB);
    // The buffers are still referenced there: only freeing can have given their pages back.
    expect(drop).toBeGreaterThan(56 * MIB);
    expect(emptied).toBe(true);
  });
});
