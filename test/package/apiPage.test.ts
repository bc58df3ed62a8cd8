/**
 * @module docs/api.md says it shows every public function of the package: each function (or
 * class) an entry point exports is named in that entry's section of the page. The list comes
 * from package.json's exports, so a function added to an entry and left off the page fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, unknown>>;
};
const page = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');

/** Each code entry point: its import name and the source it is built from. */
const entries = Object.entries(packageJson.exports).flatMap(([subpath, target]) => {
  const source = typeof target === 'object' ? target['animal-store-source'] : undefined;
  return typeof source === 'string' ? [{ name: `animal-store${subpath.slice(1)}`, source }] : [];
});

/** The page's section of an entry: from its `## \`name\`` heading to the next `## `. */
const sectionOf = (entry: string): string | undefined => {
  const start = page.indexOf(`\n## \`${entry}\`\n`);
  if (start === -1) return undefined;
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end === -1 ? undefined : end);
};

describe('docs/api.md', () => {
  it('has a section for every entry point', () => {
    expect(entries.length).toBeGreaterThanOrEqual(7);
    for (const { name } of entries) expect(sectionOf(name), `no section for ${name}`).toBeDefined();
  });

  it('names every exported function and class in the section of an entry that exports it', async () => {
    const exportedBy = new Map<string, string[]>();
    for (const { name, source } of entries) {
      const module = (await import(join(ROOT, source))) as Record<string, unknown>;
      for (const [exported, value] of Object.entries(module)) {
        // The default export has its own section (animal-store/fetch's "The default export").
        if (exported === 'default' || typeof value !== 'function') continue;
        exportedBy.set(exported, [...(exportedBy.get(exported) ?? []), name]);
      }
    }
    expect(exportedBy.has('startReplicator') && exportedBy.has('createSyncClient')).toBe(true);
    const missing = [...exportedBy].filter(([exported, names]) => !names.some((name) => sectionOf(name)?.includes(`\`${exported}`)));
    expect(missing.map(([exported, names]) => `${exported} (${names.join(', ')})`)).toEqual([]);
    // Importing every entry point's sources takes seconds on a busy machine.
  }, 30_000);
});
