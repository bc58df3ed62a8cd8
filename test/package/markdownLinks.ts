/**
 * @module What the link tests read from the Markdown the package publishes: which files, the
 * targets of their links and images, and the anchors their headings make.
 */
import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { marked, type Token, type Tokens } from 'marked';

/** README.md, ARCHITECTURE.md and every Markdown file under docs/, as paths from the repository's root. */
export const markdownFiles = (repo: string): string[] => {
  const under = (folder: string): string[] =>
    readdirSync(join(repo, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) return under(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', 'ARCHITECTURE.md', ...under('docs')];
};

/** `src` and `href` attributes of HTML written into the Markdown. */
const HTML_TARGET = /\b(?:src|href)\s*=\s*["']([^"']+)["']/gi;

/** The targets of every link and image of a Markdown text, as written. */
export const targetsOf = (markdown: string): string[] => {
  const targets: string[] = [];
  marked.walkTokens(marked.lexer(markdown), (token) => {
    if (token.type === 'link' || token.type === 'image') targets.push(token.href);
    if (token.type === 'html') for (const [, target] of token.raw.matchAll(HTML_TARGET)) targets.push(target!);
  });
  return targets;
};

/** A link target inside the repository: the file it names (from the root) and its fragment, if any. */
export interface LocalTarget {
  path: string;
  fragment: string | undefined;
}

/**
 * Where a target written in `file` leads, or undefined for one outside this check (a URL).
 * A bare `#fragment` leads into `file` itself. A path that climbs out of the repository
 * starts with `..`.
 */
export const localTarget = (file: string, target: string): LocalTarget | undefined => {
  if (/^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const hash = target.indexOf('#');
  const fragment = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const written = decodeURIComponent(target.slice(0, hash === -1 ? undefined : hash).replace(/\?.*$/, ''));
  const path = written === '' ? file : posix.normalize(posix.join(posix.dirname(file), written)).replace(/\/$/, '');
  return { path, fragment };
};

/** The plain text of a heading, as GitHub reads it to make the anchor: code spans' text without the backticks. */
const plainText = (tokens: Token[]): string =>
  tokens.map((token) => ('tokens' in token && token.tokens ? plainText(token.tokens) : 'text' in token ? token.text : '')).join('');

/**
 * The anchors GitHub (and npm) give a Markdown text's headings: lower case, punctuation
 * dropped, spaces made hyphens, and `-1`, `-2`, … after a repeated one.
 */
export const anchorsOf = (markdown: string): Set<string> => {
  const anchors = new Set<string>();
  for (const token of marked.lexer(markdown)) {
    if (token.type !== 'heading') continue;
    const slug = plainText((token as Tokens.Heading).tokens)
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    let anchor = slug;
    for (let repeat = 1; anchors.has(anchor); repeat++) anchor = `${slug}-${repeat}`;
    anchors.add(anchor);
  }
  return anchors;
};
