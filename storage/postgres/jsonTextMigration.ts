/**
 * @module Version 4 of the schema: each animal's JSON text, kept beside its fields, so that
 * PostgreSQL joins a list page from stored texts instead of writing every animal anew.
 */
import type { Migration } from './Migration.js';

/**
 * Version 4: `pets.json_text`, the animal exactly as `JSON.stringify` writes it, a column
 * PostgreSQL computes itself whenever a row is written (GENERATED … STORED), so every writer
 * (`create_pets` of any version, sync, a copy, a tool of the operator's) keeps it right
 * without knowing of it.
 *
 * `json_text_of` is declared IMMUTABLE, as a generated column requires, though it calls
 * to_json, which PostgreSQL files as STABLE: to_json of a date or a number depends on
 * settings such as DateStyle, but of text it does not: it only escapes (", \, \b \f \n \r
 * \t, other control characters as lower-case \u00xx, nothing else, as JSON.stringify does).
 * The status needs no escaping (the table's CHECK allows three words). The body is SQL
 * standard (`RETURN`, PostgreSQL 14 and later), so its names are bound once, here, whatever
 * search_path a later session has.
 *
 * Adding a stored column rewrites every row of `pets` once, and reads and writes of `pets`
 * wait for it, like version 3's `arrival`: no statement timeout, once. Instances of the
 * release before keep creating and listing meanwhile and after (they never read the column).
 */
export const version4: Migration = {
  version: 4,
  description: 'pets.json_text: each animal as JSON.stringify writes it, generated, for list pages',
  sql: (s) => `
SET LOCAL statement_timeout = 0;
CREATE FUNCTION ${s}.json_text_of(id bigint, name text, category_id bigint, status text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN '{"id":' || id::text || ',"name":' || to_json(name)::text || ',"categoryId":' || category_id::text || ',"status":"' || status || '"}';
COMMENT ON FUNCTION ${s}.json_text_of(bigint, text, bigint, text) IS 'An animal as JSON.stringify writes it (pets.json_text).';
ALTER TABLE ${s}.pets ADD COLUMN json_text text NOT NULL GENERATED ALWAYS AS (${s}.json_text_of(id, name, category_id, status)) STORED;
COMMENT ON COLUMN ${s}.pets.json_text IS 'The animal as JSON.stringify writes it, kept by PostgreSQL: list pages are joined from these.';
`,
};
