/** @module Which blocks of the documentation the doc-examples test runs. */
import { describe, expect, it } from 'vitest';
import { runnableBlocksOf } from './findRunnableBlocks.js';

describe('runnable blocks in Markdown', () => {
  it('finds the fenced blocks marked runnable, with their language and line, and nothing else', () => {
    const markdown = [
      '# Title',
      '```ts runnable',
      "import { createPetService } from 'animal-store';",
      '```',
      '```ts',
      'not runnable',
      '```',
      '1. In a list:',
      '   ~~~~sh runnable',
      '   echo ```',
      '   ~~~~',
      '',
    ].join('\n');
    expect(runnableBlocksOf(markdown, 'docs/x.md')).toEqual([
      { where: 'docs/x.md:2', language: 'ts', code: "import { createPetService } from 'animal-store';\n" },
      { where: 'docs/x.md:9', language: 'sh', code: 'echo ```\n' },
    ]);
  });
});
