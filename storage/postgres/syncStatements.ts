/** @module The statements of sync (hub and kiosk), for one schema. */

/** The SQL of each sync step, with the schema filled in. */
export interface SyncStatements {
  /** Takes the lock that orders every write (the `pet_ids` row), first in each sync transaction. */
  lock: string;
  /** The highest id held and the highest id leased (0 for none), for where the next lease starts. */
  highest: string;
  /** `$1` scope, `$2` first, `$3` last: records the lease and moves the id counter past it, in one statement; one row `first_id, last_id`. */
  lease: string;
  /** `$1` first, `$2` last: whether an animal with an id in that range is held. */
  heldIn: string;
  /** How many leases this catalogue gave (as a hub). */
  leases: string;
  /** `$1` scope: how many blocks are leased to it (`blocks`), and how many of them hold no animal (`unused`). */
  leaseCount: string;
  /** `$1` scope, `$2` ids (bigint[]): for each id, the lease of `scope` that could hold it (the one starting at or below it). */
  leasesFor: string;
  /** `$1` ids (bigint[]): the animals held with those ids. */
  held: string;
  /** `$1` animals as JSON `[{id, name, categoryId, status}]`: inserts, in order, those not held, at the end of arrival order; returns their ids. */
  insert: string;
  /** The kiosk's row, or none. */
  kiosk: string;
  /** The kiosk's blocks, ascending. */
  blocks: string;
  /** `$1` hub: makes this catalogue a kiosk. */
  join: string;
  /** `$1` hub: makes a kiosk that never leased nor pulled anything a kiosk of another hub. */
  rejoin: string;
  /** Whether any animal is held, and how many. */
  count: string;
  /** `$1` first, `$2` last: keeps a block (a repeat is ignored). */
  addBlock: string;
  /** `$1` next id: the kiosk's next id. */
  setNextId: string;
  /** `$1` after (an id), `$2` limit: the next animals in arrival order, each with its arrival. */
  scan: string;
  /** Animals made here (ids in the kiosk's blocks) after `pushed_through` in arrival order. */
  waiting: string;
  /** `$1` through: moves `pushed_through` there, if that is forward in arrival order. */
  markPushed: string;
  /** Drops the kiosk's spent blocks: every id given and none waiting to be pushed; the last block stays (see `dropSpentBlocks`). */
  dropSpentBlocks: string;
  /** `$1` checkpoint: the kiosk's pull checkpoint. */
  setCheckpoint: string;
}

/** Where in arrival order the animal with id `id` (a SQL expression) stands; an id not held stands at itself. */
const arrivalOf = (quoted: string, id: string) => `coalesce((SELECT a.arrival FROM ${quoted}.pets AS a WHERE a.id = ${id}), ${id})`;

/** Builds the sync statements for the schema `quoted` (a quoted identifier). */
export const syncStatements = (quoted: string): SyncStatements => ({
  lock: `SELECT next_id FROM ${quoted}.pet_ids FOR UPDATE`,
  highest: `SELECT (SELECT coalesce(max(p.id), 0) FROM ${quoted}.pets AS p) AS highest_id,
    (SELECT coalesce(max(l.last_id), 0) FROM ${quoted}.sync_leases AS l) AS leased_id`,
  // Run under the lock, so the counter and the leases cannot move between reading and writing them.
  lease: `WITH moved AS (UPDATE ${quoted}.pet_ids SET next_id = $3::bigint + 1)
    INSERT INTO ${quoted}.sync_leases (scope, first_id, last_id) VALUES ($1, $2::bigint, $3::bigint) RETURNING first_id, last_id`,
  heldIn: `SELECT EXISTS (SELECT FROM ${quoted}.pets WHERE id BETWEEN $1::bigint AND $2::bigint) AS held`,
  leases: `SELECT count(*) AS leases FROM ${quoted}.sync_leases`,
  // Each lease is one probe of the pets primary key.
  leaseCount: `SELECT count(*) AS blocks,
      count(*) FILTER (WHERE NOT EXISTS (SELECT FROM ${quoted}.pets AS p WHERE p.id BETWEEN l.first_id AND l.last_id)) AS unused
    FROM ${quoted}.sync_leases AS l WHERE l.scope = $1`,
  leasesFor: `SELECT DISTINCT l.first_id, l.last_id FROM unnest($2::bigint[]) AS u(id)
    CROSS JOIN LATERAL (
      SELECT x.first_id, x.last_id FROM ${quoted}.sync_leases AS x
      WHERE x.scope = $1 AND x.first_id <= u.id ORDER BY x.first_id DESC LIMIT 1
    ) AS l`,
  held: `SELECT id, name, category_id, status FROM ${quoted}.pets WHERE id = ANY ($1::bigint[]) ORDER BY id`,
  // Run under the lock, so max(arrival) is the newest and arrival order is commit order. A row
  // held already (a pulled animal that is this kiosk's own) is skipped and leaves a gap in
  // arrival, which nothing minds: arrivals need only ascend.
  insert: `INSERT INTO ${quoted}.pets (id, name, category_id, status, arrival)
    SELECT t.id, t.name, t."categoryId", t.status,
      (SELECT coalesce(max(p.arrival), 0) FROM ${quoted}.pets AS p) + t.ordinal
    FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(entry, ordinal)
    CROSS JOIN LATERAL (
      SELECT (e.entry ->> 'id')::bigint AS id, e.entry ->> 'name' AS name, (e.entry ->> 'categoryId')::bigint AS "categoryId",
        e.entry ->> 'status' AS status, e.ordinal
    ) AS t
    ORDER BY t.ordinal
    ON CONFLICT (id) DO NOTHING RETURNING id`,
  kiosk: `SELECT hub, next_id, pushed_through, checkpoint FROM ${quoted}.sync_kiosk`,
  blocks: `SELECT first_id, last_id FROM ${quoted}.sync_kiosk_blocks ORDER BY first_id`,
  join: `INSERT INTO ${quoted}.sync_kiosk (hub, next_id, pushed_through, checkpoint) VALUES ($1, 0, 0, 0)`,
  rejoin: `UPDATE ${quoted}.sync_kiosk SET hub = $1, next_id = 0, pushed_through = 0, checkpoint = 0`,
  count: `SELECT count(*) AS held FROM ${quoted}.pets`,
  addBlock: `INSERT INTO ${quoted}.sync_kiosk_blocks (first_id, last_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
  setNextId: `UPDATE ${quoted}.sync_kiosk SET next_id = $1`,
  scan: `SELECT id, name, category_id, status FROM ${quoted}.pets
    WHERE arrival > ${arrivalOf(quoted, '$1::bigint')} ORDER BY arrival LIMIT $2`,
  waiting: `SELECT count(*) AS waiting FROM ${quoted}.sync_kiosk AS k
    JOIN ${quoted}.pets AS p ON p.arrival > ${arrivalOf(quoted, 'k.pushed_through')}
    WHERE EXISTS (SELECT FROM ${quoted}.sync_kiosk_blocks AS b WHERE b.first_id <= p.id AND p.id <= b.last_id)`,
  markPushed: `UPDATE ${quoted}.sync_kiosk SET pushed_through = $1
    WHERE ${arrivalOf(quoted, '$1::bigint')} > ${arrivalOf(quoted, 'pushed_through')}`,
  // Each block is one range probe of the pets primary key.
  dropSpentBlocks: `DELETE FROM ${quoted}.sync_kiosk_blocks AS b USING ${quoted}.sync_kiosk AS k
    WHERE b.first_id < (SELECT max(x.first_id) FROM ${quoted}.sync_kiosk_blocks AS x)
      AND (k.next_id = 0 OR b.last_id < k.next_id)
      AND NOT EXISTS (SELECT FROM ${quoted}.pets AS p
        WHERE p.id BETWEEN b.first_id AND b.last_id AND p.arrival > ${arrivalOf(quoted, 'k.pushed_through')})`,
  setCheckpoint: `UPDATE ${quoted}.sync_kiosk SET checkpoint = $1`,
});
