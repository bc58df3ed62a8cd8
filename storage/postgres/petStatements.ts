/** @module The statements the storage runs at request time, for one schema. */
import { LIMIT_MAX } from '../../core/schemas/ListQuery.js';

/** The SQL of each operation, with the schema filled in. */
export interface PetStatements {
  /** `$1` id: the animal, or no row. */
  get: string;
  /** `$1` after (an id), `$2` limit: the next animals in arrival order (index `pets_arrival`). */
  list: string;
  /** `$1` after (an id), `$2` limit, `$3` status: the next animals of a status in arrival order (index `pets_status_arrival`). */
  listByStatus: string;
  /** `$1` after, `$2` limit: `list`'s page as one row, its JSON `text` and, when more follow, `next_after` (see `pageText`). */
  listText: string;
  /** `$1` after, `$2` limit, `$3` status: `listByStatus`'s page as one row, as `listText`. */
  listTextByStatus: string;
  /** `$1` afters, `$2` limits, `$3` statuses (null for none), arrays of one length: a row per page, in order, as `listText`. */
  listTexts: string;
  /** `$1` the batch as JSON: one row per entry (see `create_pets` in syncMigration.ts, version 3). */
  create: string;
  /** Whether the server can take writes now. */
  health: string;
  /** `$1` now (milliseconds since the epoch), `$2` the most to delete: forgets expired keys, oldest first. */
  sweepKeys: string;
}

/** Where a page starts, what it holds and how long it is, as SQL expressions: parameters, or a batch's columns. */
interface PageTerms {
  after: string;
  limit: string;
  status: string;
}

/**
 * A page of `limit + 1` animals (the statement `ofPage`, ordered by arrival) as one row:
 * `text`, the first `limit` of them exactly as `JSON.stringify` writes them, and
 * `next_after`, the id of the last of those when one more follows. Written by concatenation:
 * PostgreSQL's json_build_object and json_agg put spaces and newlines between items, and
 * jsonb reorders keys. to_json escapes a string as JSON.stringify does (", \, \b \f \n \r \t,
 * other control characters as lower-case \u00xx, nothing else), and ids print as integers.
 */
const pageText = (ofPage: string, { limit }: PageTerms) => `SELECT '[' || coalesce(string_agg(
      '{"id":' || id || ',"name":' || to_json(name)::text || ',"categoryId":' || category_id || ',"status":' || to_json(status)::text || '}',
      ',' ORDER BY n) FILTER (WHERE n <= ${limit}), '') || ']' AS text,
    max(id) FILTER (WHERE n = ${limit} AND more) AS next_after
  FROM (SELECT page.*, row_number() OVER (ORDER BY arrival) AS n, count(*) OVER () > ${limit} AS more FROM (${ofPage}) AS page) AS numbered`;

/** Builds the statements for the schema `quoted` (a quoted identifier). */
export const petStatements = (quoted: string): PetStatements => {
  const columns = 'id, name, category_id, status';
  // Where a page starts: after the arrival of the animal `after`; for an id not stored (0, or
  // an id from elsewhere) after that number itself, which is the same while arrival is id
  // order (a catalogue that never synced).
  const start = (after: string) => `coalesce((SELECT a.arrival FROM ${quoted}.pets AS a WHERE a.id = ${after}), ${after})`;
  // Every page is at most LIMIT_MAX + 1 rows, and each statement says so with a constant:
  // with only a parameter or a column for its LIMIT, the planner guesses a tenth of the
  // table, and on a large one a batch of pages then costs enough for PostgreSQL to compile
  // it (JIT) at each run, many times what reading a few hundred rows costs.
  const capped = (selected: string, where: string, order: string, limit: string) =>
    `SELECT ${selected} FROM (SELECT * FROM ${quoted}.pets WHERE ${where} ORDER BY ${order} LIMIT ${LIMIT_MAX + 1}) AS capped
      ORDER BY ${order} LIMIT ${limit}`;
  const list = (selected: string, { after }: PageTerms, limit: string, only = '') =>
    capped(selected, `${only}arrival > ${start(after)}`, 'arrival', limit);
  // Written against the index pets_status_arrival, (status, arrival), so the planner can
  // only walk it and reads `limit` rows. With "status = $3 AND arrival > … ORDER BY arrival"
  // it may walk pets_arrival instead and skip the rows of other statuses: as many as the
  // catalogue holds when a status is rare among newer animals. The row comparison and the
  // upper bound together mean exactly status = $3 and arrival > the start.
  const listByStatus = (selected: string, { after, status }: PageTerms, limit: string, only = '') =>
    capped(selected, `${only}(status, arrival) > (${status}, ${start(after)}) AND status <= ${status}`, 'status, arrival', limit);
  const parameters: PageTerms = { after: '$1', limit: '$2', status: '$3' };
  const columnsOf: PageTerms = { after: 'r.after', limit: 'r.size', status: 'r.status' };
  const withArrival = `${columns}, arrival`;
  return {
    get: `SELECT ${columns} FROM ${quoted}.pets WHERE id = $1`,
    list: list(columns, parameters, '$2'),
    listByStatus: listByStatus(columns, parameters, '$2'),
    listText: pageText(list(withArrival, parameters, '$2 + 1'), parameters),
    listTextByStatus: pageText(listByStatus(withArrival, parameters, '$2 + 1'), parameters),
    // Each page as `listText` or `listTextByStatus` makes it: the branch of the other kind
    // is cut at once by its constant condition, so each still walks its own index.
    listTexts: `SELECT p.text, p.next_after
      FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(after, size, status, ordinal)
      CROSS JOIN LATERAL (${pageText(
        `(${list(withArrival, columnsOf, 'r.size + 1', 'r.status IS NULL AND ')})
        UNION ALL (${listByStatus(withArrival, columnsOf, 'r.size + 1', 'r.status IS NOT NULL AND ')})`,
        columnsOf,
      )}) AS p ORDER BY r.ordinal`,
    create: `SELECT pet_id AS id, pet_name AS name, pet_category_id AS category_id, pet_status AS status, replayed,
      key_fingerprint, key_created_at, key_expires_at FROM ${quoted}.create_pets($1::jsonb)`,
    health: `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only`,
    // Through the index on expires_at, a bounded batch: a backlog leaves over several sweeps.
    sweepKeys: `DELETE FROM ${quoted}.idempotency_keys WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${quoted}.idempotency_keys WHERE expires_at <= to_timestamp($1::numeric / 1000) ORDER BY expires_at LIMIT $2))`,
  };
};
