/**
 * @module Every link and image in README.md leads somewhere, both in the repository (GitHub
 * shows the README there) and in the published tarball (npm shows it there, and a user reads
 * it in node_modules). External http(s) links are left alone: no network here.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { marked } from 'marked';
import { beforeAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** `src` and `href` attributes of HTML written into the Markdown. */
const HTML_TARGET = /\b(?:src|href)\s*=\s*["']([^"']+)["']/gi;

/** The targets of every link and image of a Markdown text, as written. */
const targetsOf = (markdown: string): string[] => {
  const targets: string[] = [];
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type === 'link' || token.type === 'image') targets.push(token.href);
    if (token.type === 'html') for (const [, target] of token.raw.matchAll(HTML_TARGET)) targets.push(target!);
  });
  return targets;
};

/** A target as a path from the repository's root, or undefined for one outside this check (a URL, an anchor). */
const localPath = (target: string): string | undefined => {
  if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('//')) return undefined;
  return posix.normalize(decodeURIComponent(target.replace(/[?#].*$/, ''))).replace(/\/$/, '');
};

let targets: string[];
let packed: string[];

beforeAll(async () => {
  targets = targetsOf(await readFile(join(repo, 'README.md'), 'utf8'));
  // The file list npm would publish; --ignore-scripts skips the build, which the README's targets do not need.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: repo,
    timeout: 30_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ files: Array<{ path: string }> }>;
  packed = report!.files.map((file) => file.path);
}, 40_000);

describe('README.md', () => {
  it('links to the interface, the decisions and the licence, and shows images, all as files of its own', () => {
    const local = targets.map(localPath);
    expect(local).toEqual(expect.arrayContaining(['docs/interface.md', 'docs/decisions.md', 'LICENSE']));
    expect(local.filter((path) => path?.startsWith('docs/images/'))).not.toEqual([]);
  });

  it('has every local link and image target in the repository', () => {
    const missing = targets.filter((target) => {
      const path = localPath(target);
      return path !== undefined && (path.startsWith('..') || !existsSync(join(repo, path)));
    });
    expect(missing).toEqual([]);
  });

  it('has every local link and image target in the published tarball', () => {
    const missing = targets.filter((target) => {
      const path = localPath(target);
      return path !== undefined && !packed.some((file) => file === path || file.startsWith(`${path}/`));
    });
    expect(missing).toEqual([]);
  });
});
