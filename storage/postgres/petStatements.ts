/** @module The statements the storage runs at request time, for one schema. */

/** The SQL of each operation, with the schema filled in. */
export interface PetStatements {
  /** `$1` id: the animal, or no row. */
  get: string;
  /** `$1` after, `$2` limit: the next animals in id order (primary key). */
  list: string;
  /** `$1` after, `$2` limit, `$3` status: the next animals of a status in id order (index `pets_status_id`). */
  listByStatus: string;
  /** `$1` the batch as JSON: one row per entry (see `create_pets` in migrations.ts). */
  create: string;
  /** Whether the server can take writes now. */
  health: string;
}

/** Builds the statements for the schema `quoted` (a quoted identifier). */
export const petStatements = (quoted: string): PetStatements => {
  const columns = 'id, name, category_id, status';
  return {
    get: `SELECT ${columns} FROM ${quoted}.pets WHERE id = $1`,
    list: `SELECT ${columns} FROM ${quoted}.pets WHERE id > $1 ORDER BY id LIMIT $2`,
    listByStatus: `SELECT ${columns} FROM ${quoted}.pets WHERE status = $3 AND id > $1 ORDER BY id LIMIT $2`,
    create: `SELECT pet_id AS id, pet_name AS name, pet_category_id AS category_id, pet_status AS status, replayed,
      key_fingerprint, key_created_at, key_expires_at FROM ${quoted}.create_pets($1::jsonb)`,
    health: `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only`,
  };
};
