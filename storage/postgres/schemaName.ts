/** @module The PostgreSQL schema the storage keeps its tables in: checked, then quoted. */

/** The schema used when none is given. */
export const DEFAULT_SCHEMA = 'animal_store';

/** What a schema name may be: a lowercase SQL identifier, so it needs no quoting in psql either. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks a schema name and returns it quoted for SQL. Names are limited to lowercase letters,
 * digits and `_` (at most 63, PostgreSQL's limit): the same name then works unquoted in psql,
 * and no name can smuggle SQL into the statements built with it.
 */
export const quoteSchema = (schema: string): string => {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `The schema name ${JSON.stringify(schema.slice(0, 80))} is not allowed: use 1 to 63 lowercase letters, digits and _, starting with a letter or _.`,
    );
  }
  return `"${schema}"`;
};
