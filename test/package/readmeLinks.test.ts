/**
 * @module Every link and image in README.md, ARCHITECTURE.md and docs/ leads somewhere, both in the repository
 * (GitHub shows the pages there) and in the published tarball (npm shows the README there,
 * and a user reads the pages in node_modules), and every `#anchor` names a heading of the
 * page it points into. In process: what the tarball holds is read from package.json's
 * `files`; readmeLinks.system.test.ts checks the same against `npm pack`'s own list.
 * External http(s) links are left alone: no network here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { anchorsOf, type LocalTarget, localTarget, markdownFiles, targetsOf } from './markdownLinks.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** Each page's text, by its path from the root. */
const pages = new Map<string, string>();
/** Each local link target, with the page it is written in. */
let links: Array<{ page: string; target: string; local: LocalTarget }>;
/** Whether npm publishes a path: package.json, the README and licence always, else what `files` names. */
let published: (path: string) => boolean;

beforeAll(async () => {
  for (const page of markdownFiles(repo)) pages.set(page, await readFile(join(repo, page), 'utf8'));
  links = [...pages].flatMap(([page, text]) =>
    targetsOf(text).flatMap((target) => {
      const local = localTarget(page, target);
      return local ? [{ page, target, local }] : [];
    }),
  );
  const { files } = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { files: string[] };
  // Plain paths only: a glob in `files` needs npm's own matching, which the system test has.
  expect(files.filter((entry) => /[*?[{!]/.test(entry))).toEqual([]);
  published = (path) =>
    /^(package\.json|README(\.md)?|LICEN[CS]E(\.md)?)$/i.test(path) ||
    files.some((entry) => path === entry.replace(/\/$/, '') || path.startsWith(`${entry.replace(/\/$/, '')}/`));
});

/** Links written as `page: target`, for failure messages. */
const named = (list: typeof links) => list.map(({ page, target }) => `${page}: ${target}`);

describe('README.md', () => {
  it('is at most 300 lines', () => {
    expect(pages.get('README.md')!.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('links to the architecture, the manual, the interface, its decisions and the licence, and shows an image', () => {
    const paths = links.filter(({ page }) => page === 'README.md').map(({ local }) => local.path);
    expect(paths).toEqual(
      expect.arrayContaining(['ARCHITECTURE.md', 'docs/README.md', 'docs/interface.md', 'docs/decisions.md', 'LICENSE']),
    );
    expect(paths.filter((path) => path.startsWith('docs/images/'))).not.toEqual([]);
  });
});

describe('README.md and docs/', () => {
  it('has every page of docs/ linked from the manual', () => {
    const linked = new Set(links.filter(({ page }) => page === 'docs/README.md').map(({ local }) => local.path));
    const pagesOfDocs = [...pages.keys()].filter((page) => page.startsWith('docs/') && page !== 'docs/README.md');
    expect(pagesOfDocs.filter((page) => !linked.has(page))).toEqual([]);
  });

  it('has every local link and image target in the repository', () => {
    const missing = links.filter(({ local }) => local.path.startsWith('..') || !existsSync(join(repo, local.path)));
    expect(named(missing)).toEqual([]);
  });

  it('has every local link and image target in the published tarball', () => {
    expect(named(links.filter(({ local }) => !published(local.path)))).toEqual([]);
  });

  it('has every #anchor name a heading of the page it points into', () => {
    const broken = links.filter(({ local }) => {
      if (local.fragment === undefined) return false;
      // A fragment into a file that is not Markdown (a picture, the licence) names nothing to check.
      if (!local.path.endsWith('.md') || !existsSync(join(repo, local.path))) return !local.path.endsWith('.md');
      const text = pages.get(local.path) ?? readFileSync(join(repo, local.path), 'utf8');
      return !anchorsOf(text).has(local.fragment);
    });
    expect(named(broken)).toEqual([]);
  });
});
