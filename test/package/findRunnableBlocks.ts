/**
 * @module The code blocks of the documentation that a user may run as written: fenced blocks
 * whose info string holds the word `runnable` (```` ```ts runnable ````, `js runnable`,
 * `sh runnable`), read from README.md and docs/**\/*.md at test time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One runnable block: where it is, its language and its text. */
export interface RunnableBlock {
  /** `README.md:24`: the file (relative to the repository) and the line of its opening fence. */
  where: string;
  /** The first word of the info string: `ts`, `js` or `sh`. */
  language: string;
  code: string;
}

/** The runnable blocks of one Markdown text, in order. */
export const runnableBlocksOf = (markdown: string, file: string): RunnableBlock[] => {
  const blocks: RunnableBlock[] = [];
  const lines = markdown.split('\n');
  for (let at = 0; at < lines.length; at++) {
    const open = /^( {0,3})(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[at]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const close = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const start = at;
    const body: string[] = [];
    for (at++; at < lines.length && !close.test(lines[at]!); at++) body.push(lines[at]!.replace(new RegExp(`^ {0,${indent.length}}`), ''));
    const words = info.trim().split(/\s+/);
    if (words.includes('runnable')) blocks.push({ where: `${file}:${start + 1}`, language: words[0]!, code: `${body.join('\n')}\n` });
  }
  return blocks;
};

/** Every runnable block of README.md and docs/**\/*.md under `root`. */
export const findRunnableBlocks = (root: string): RunnableBlock[] => {
  const docs = readdirSync(path.join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs].flatMap((file) => runnableBlocksOf(readFileSync(path.join(root, file), 'utf8'), file));
};
