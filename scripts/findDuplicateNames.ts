/**
 * @module Finds top-level names defined in more than one file of core/, storage/ and
 * adapters/: one name per thing, so a helper written twice becomes one and two different
 * things get two names. `npx tsx scripts/findDuplicateNames.ts` prints them (exit code 1 when
 * there are any); test/scripts/findDuplicateNames.test.ts keeps the list empty.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders whose names must be unique, relative to the repository. */
export const CHECKED_FOLDERS = ['core', 'storage', 'adapters'];

/** Names left defined twice, each with why (none now: each was made one helper or given two names). */
export const KNOWN_DUPLICATES: Readonly<Record<string, string>> = {};

/** The names a file defines at its top level: constants and variables, functions, classes, interfaces, types and enums (not imports). */
export const topLevelNames = (file: string, text: string): string[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.add(declaration.name.text);
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.add(statement.name.text);
    }
  }
  return [...names];
};

/** Every name defined at the top level of more than one file under `root`'s checked folders, with those files, sorted. */
export const findDuplicateNames = (root: string): Map<string, string[]> => {
  const definedIn = new Map<string, string[]>();
  for (const folder of CHECKED_FOLDERS) {
    const files = readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    for (const file of files.sort()) {
      const relative = path.join(folder, file);
      for (const name of topLevelNames(relative, readFileSync(path.join(root, relative), 'utf8'))) {
        definedIn.set(name, [...(definedIn.get(name) ?? []), relative]);
      }
    }
  }
  return new Map([...definedIn].filter(([, files]) => files.length > 1).sort(([a], [b]) => a.localeCompare(b)));
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  const duplicates = [...findDuplicateNames(root)].filter(([name]) => !(name in KNOWN_DUPLICATES));
  for (const [name, files] of duplicates) console.log(`${name}: ${files.join(', ')}`);
  process.exitCode = duplicates.length > 0 ? 1 : 0;
}
