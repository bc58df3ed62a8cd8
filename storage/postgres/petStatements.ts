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

/**
 * How a page walks one of the indexes of `pets`, as SQL: `after`, the condition for the
 * animals that arrived after an arrival; `order`, the index's own order.
 */
interface IndexWalk {
  after(arrival: string): string;
  order: string;
}

/**
 * A page (the statement `ofPage`: at most `limit` animals' `json_text` and arrival, in
 * arrival order) as one row: `text`, the animals exactly as `JSON.stringify` writes the
 * array (joined from the texts PostgreSQL keeps, see jsonTextMigration.ts), and
 * `next_after`, the id of the last of them when a full page has more after it
 * (`moreAfter`: whether an animal of the page's kind arrived after the arrival it is
 * given). Written by concatenation: PostgreSQL's json_agg puts spaces and newlines between
 * items, and jsonb reorders keys. One probe of an index for what follows costs less than
 * reading a row more and numbering the rows to leave it out.
 */
const pageText = (ofPage: string, moreAfter: (arrival: string) => string, limit: string, pets: string) => `SELECT
    '[' || coalesce(page.text, '') || ']' AS text,
    CASE WHEN page.size = ${limit} AND ${moreAfter('page.last')}
      THEN (SELECT l.id FROM ${pets} AS l WHERE l.arrival = page.last) END AS next_after
  FROM (SELECT string_agg(json_text, ',' ORDER BY arrival) AS text, max(arrival) AS last, count(*) AS size FROM (${ofPage}) AS rows) AS page`;

/** Builds the statements for the schema `quoted` (a quoted identifier). */
export const petStatements = (quoted: string): PetStatements => {
  const pets = `${quoted}.pets`;
  const columns = 'id, name, category_id, status';
  // Where a page starts: after the arrival of the animal `after`; for an id not stored (0, or
  // an id from elsewhere) after that number itself, which is the same while arrival is id
  // order (a catalogue that never synced).
  const start = (after: string) => `coalesce((SELECT a.arrival FROM ${pets} AS a WHERE a.id = ${after}), ${after})`;
  // Every page is at most LIMIT_MAX + 1 rows, and each statement says so with a constant:
  // with only a parameter or a column for its LIMIT, the planner guesses a tenth of the
  // table, and on a large one a batch of pages then costs enough for PostgreSQL to compile
  // it (JIT) at each run, many times what reading a few hundred rows costs.
  const capped = (selected: string, where: string, order: string, limit: string) =>
    `SELECT ${selected} FROM (SELECT * FROM ${pets} WHERE ${where} ORDER BY ${order} LIMIT ${LIMIT_MAX + 1}) AS capped
      ORDER BY ${order} LIMIT ${limit}`;
  // Every animal, in the index pets_arrival.
  const byArrival: IndexWalk = { after: (arrival) => `arrival > ${arrival}`, order: 'arrival' };
  // The animals of a status, written against the index pets_status_arrival, (status,
  // arrival), so the planner can only walk it and reads `limit` rows. With "status = $3 AND
  // arrival > … ORDER BY arrival" it may walk pets_arrival instead and skip the rows of other
  // statuses: as many as the catalogue holds when a status is rare among newer animals. The
  // row comparison and the upper bound together mean exactly status = $3 and arrival > the start.
  const byStatus = (status: string): IndexWalk => ({
    after: (arrival) => `(status, arrival) > (${status}, ${arrival}) AND status <= ${status}`,
    order: 'status, arrival',
  });
  // `only`: a condition fixed for the whole statement, which cuts the page out of a batch's other kind.
  const page = (selected: string, walk: IndexWalk, after: string, limit: string, only = '') =>
    capped(selected, `${only}${walk.after(start(after))}`, walk.order, limit);
  // Whether an animal follows, as the first in the index's order: with a bare EXISTS the
  // planner may scan the table for any row that matches, from its start, which costs as
  // much as the page is deep in the catalogue.
  const follows = (walk: IndexWalk, arrival: string) =>
    `(SELECT true FROM ${pets} WHERE ${walk.after(arrival)} ORDER BY ${walk.order} LIMIT 1) IS NOT NULL`;
  const texts = 'json_text, arrival';
  return {
    get: `SELECT ${columns} FROM ${pets} WHERE id = $1`,
    list: page(columns, byArrival, '$1', '$2'),
    listByStatus: page(columns, byStatus('$3'), '$1', '$2'),
    listText: pageText(page(texts, byArrival, '$1', '$2'), (last) => follows(byArrival, last), '$2', pets),
    listTextByStatus: pageText(page(texts, byStatus('$3'), '$1', '$2'), (last) => follows(byStatus('$3'), last), '$2', pets),
    // Each page as `listText` or `listTextByStatus` makes it: the branch of the other kind
    // is cut at once by its constant condition, so each still walks its own index.
    listTexts: `SELECT p.text, p.next_after
      FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(after, size, status, ordinal)
      CROSS JOIN LATERAL (${pageText(
        `(${page(texts, byArrival, 'r.after', 'r.size', 'r.status IS NULL AND ')})
        UNION ALL (${page(texts, byStatus('r.status'), 'r.after', 'r.size', 'r.status IS NOT NULL AND ')})`,
        (last) => `CASE WHEN r.status IS NULL THEN ${follows(byArrival, last)} ELSE ${follows(byStatus('r.status'), last)} END`,
        'r.size',
        pets,
      )}) AS p ORDER BY r.ordinal`,
    create: `SELECT pet_id AS id, pet_name AS name, pet_category_id AS category_id, pet_status AS status, replayed,
      key_fingerprint, key_created_at, key_expires_at FROM ${quoted}.create_pets($1::jsonb)`,
    health: `SELECT pg_is_in_recovery() AS in_recovery, current_setting('transaction_read_only') AS read_only`,
    // Through the index on expires_at, a bounded batch: a backlog leaves over several sweeps.
    sweepKeys: `DELETE FROM ${quoted}.idempotency_keys WHERE ctid = ANY (ARRAY(
      SELECT ctid FROM ${quoted}.idempotency_keys WHERE expires_at <= to_timestamp($1::numeric / 1000) ORDER BY expires_at LIMIT $2))`,
  };
};
