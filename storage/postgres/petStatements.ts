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
 * A page (the statement `ofPage`: at most `limit` animals' `json_text` and arrival, in
 * arrival order) as one row: `text`, the animals exactly as `JSON.stringify` writes the
 * array (joined from the texts PostgreSQL keeps, see jsonTextMigration.ts), and
 * `next_after`, the id of the last of them when a full page has more after it
 * (`moreAfter`: whether an animal of the page's kind arrived after the arrival it is
 * given). Written by concatenation: PostgreSQL's json_agg puts spaces and newlines between
 * items, and jsonb reorders keys. One probe of an index for what follows costs less than
 * reading a row more and numbering the rows to leave it out.
 */
const pageText = (ofPage: string, moreAfter: (arrival: string) => string, { limit }: PageTerms, pets: string) => `SELECT
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
  // Animals after an arrival, in the index pets_arrival.
  const arrivedAfter = (arrival: string) => `arrival > ${arrival}`;
  // Animals of a status after an arrival, written against the index pets_status_arrival,
  // (status, arrival), so the planner can only walk it and reads `limit` rows. With
  // "status = $3 AND arrival > … ORDER BY arrival" it may walk pets_arrival instead and skip
  // the rows of other statuses: as many as the catalogue holds when a status is rare among
  // newer animals. The row comparison and the upper bound together mean exactly status = $3
  // and arrival > the start.
  const ofStatusAfter = (status: string) => (arrival: string) => `(status, arrival) > (${status}, ${arrival}) AND status <= ${status}`;
  const list = (selected: string, { after }: PageTerms, limit: string, only = '') =>
    capped(selected, `${only}${arrivedAfter(start(after))}`, 'arrival', limit);
  const listByStatus = (selected: string, { after, status }: PageTerms, limit: string, only = '') =>
    capped(selected, `${only}${ofStatusAfter(status)(start(after))}`, 'status, arrival', limit);
  // Whether an animal follows, as the first in the index's order: with a bare EXISTS the
  // planner may scan the table for any row that matches, from its start, which costs as
  // much as the page is deep in the catalogue.
  const follows = (where: string, order: string) => `(SELECT true FROM ${pets} WHERE ${where} ORDER BY ${order} LIMIT 1) IS NOT NULL`;
  const parameters: PageTerms = { after: '$1', limit: '$2', status: '$3' };
  const columnsOf: PageTerms = { after: 'r.after', limit: 'r.size', status: 'r.status' };
  const texts = 'json_text, arrival';
  return {
    get: `SELECT ${columns} FROM ${pets} WHERE id = $1`,
    list: list(columns, parameters, '$2'),
    listByStatus: listByStatus(columns, parameters, '$2'),
    listText: pageText(list(texts, parameters, '$2'), (last) => follows(arrivedAfter(last), 'arrival'), parameters, pets),
    listTextByStatus: pageText(
      listByStatus(texts, parameters, '$2'),
      (last) => follows(ofStatusAfter('$3')(last), 'status, arrival'),
      parameters,
      pets,
    ),
    // Each page as `listText` or `listTextByStatus` makes it: the branch of the other kind
    // is cut at once by its constant condition, so each still walks its own index.
    listTexts: `SELECT p.text, p.next_after
      FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS r(after, size, status, ordinal)
      CROSS JOIN LATERAL (${pageText(
        `(${list(texts, columnsOf, 'r.size', 'r.status IS NULL AND ')})
        UNION ALL (${listByStatus(texts, columnsOf, 'r.size', 'r.status IS NOT NULL AND ')})`,
        (last) =>
          `CASE WHEN r.status IS NULL THEN ${follows(arrivedAfter(last), 'arrival')} ELSE ${follows(ofStatusAfter('r.status')(last), 'status, arrival')} END`,
        columnsOf,
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
