/** @module The statements the storage runs at request time, for one schema. */

/** The SQL of each operation, with the schema filled in. */
export interface PetStatements {
  /** `$1` id: the animal, or no row. */
  get: string;
  /** `$1` after (an id), `$2` limit: the next animals in arrival order (index `pets_arrival`). */
  list: string;
  /** `$1` after (an id), `$2` limit, `$3` status: the next animals of a status in arrival order (index `pets_status_arrival`). */
  listByStatus: string;
  /** `$1` the batch as JSON: one row per entry (see `create_pets` in syncMigration.ts, version 3). */
  create: string;
  /** Whether the server can take writes now. */
  health: string;
  /** `$1` now (milliseconds since the epoch), `$2` the most to delete: forgets expired keys, oldest first. */
  sweepKeys: string;
}

/** Builds the statements for the schema `quoted` (a quoted identifier). */
export const petStatements = (quoted: string): PetStatements => {
  const columns = 'id, name, category_id, status';
  return {
    get: `SELECT ${columns} FROM ${quoted}.pets WHERE id = $1`,
    // Where a page starts: after the arrival of the animal `after`; for an id not stored (0, or
    // an id from elsewhere) after that number itself, which is the same while arrival is id
    // order (a catalogue that never synced).
    list: `SELECT ${columns} FROM ${quoted}.pets
      WHERE arrival > coalesce((SELECT a.arrival FROM ${quoted}.pets AS a WHERE a.id = $1), $1) ORDER BY arrival LIMIT $2`,
    // Written against the index pets_status_arrival, (status, arrival), so the planner can
    // only walk it and reads `limit` rows. With "status = $3 AND arrival > … ORDER BY arrival"
    // it may walk pets_arrival instead and skip the rows of other statuses: as many as the
    // catalogue holds when a status is rare among newer animals. The row comparison and the
    // upper bound together mean exactly status = $3 and arrival > the start.
    listByStatus: `SELECT ${columns} FROM ${quoted}.pets
      WHERE (status, arrival) > ($3, coalesce((SELECT a.arrival FROM ${quoted}.pets AS a WHERE a.id = $1), $1))
        AND status <= $3 ORDER BY status, arrival LIMIT $2`,
    create: `SELECT pet_id AS id, pet_name AS name, pet_category_id AS category_id, pet_status AS status, replayed,
      key_fingerprint, key_created_at, key_expires_at FROM ${quoted}.create_pets($1::jsonb)`,
    health: `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only`,
    // Through the index on expires_at, a bounded batch: a backlog leaves over several sweeps.
    sweepKeys: `DELETE FROM ${quoted}.idempotency_keys WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${quoted}.idempotency_keys WHERE expires_at <= to_timestamp($1::numeric / 1000) ORDER BY expires_at LIMIT $2))`,
  };
};
