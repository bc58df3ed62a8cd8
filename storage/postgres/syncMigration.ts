/**
 * @module Version 3 of the schema: what sync needs (arrival order, the hub's leases, the
 * kiosk's state), added in place to a version-2 schema without losing or rewriting an animal's fields.
 */

import { epochMilliseconds } from './epochMilliseconds.js';
import type { Migration } from './Migration.js';

/** The SQLSTATE `create_pets` raises when a kiosk has no leased id left for a batch (see `toStorageError`). */
export const NO_KIOSK_IDS = 'AS503';

/**
 * Version 3: sync.
 *
 * - `pets.arrival`: the order animals were stored in this catalogue, which lists follow. It
 *   is given under the `pet_ids` row lock, like ids, so arrival order is visibility order on
 *   every instance. Existing rows get `arrival = id` (their order so far), and a local create
 *   on a hub keeps `arrival = id` while it can, so a catalogue that never syncs lists as before.
 *   The column is filled in one UPDATE, with no statement timeout: the upgrade of a large
 *   catalogue takes as long as it takes, once.
 * - `sync_leases`: the blocks of ids a hub leased to each sync key (by fingerprint).
 * - `sync_kiosk` and `sync_kiosk_blocks`: a kiosk's hub, progress and leased blocks.
 * - `create_pets` again, same signature (so instances still on version 1 or 2 keep creating):
 *   on a kiosk it takes ids from the leased blocks, and every create gets its arrival. Like
 *   version 2's, it deletes no expired key: each instance's periodic sweep does.
 *
 * `pets_status_id` stays, unused by this version, so instances of the previous version keep
 * listing by status quickly during a rolling upgrade.
 */
export const version3: Migration = {
  version: 3,
  description: 'sync: pets.arrival, sync_leases, sync_kiosk, sync_kiosk_blocks; create_pets gives arrivals and kiosk ids',
  sql: (s) => `
SET LOCAL statement_timeout = 0;
ALTER TABLE ${s}.pets ADD COLUMN arrival bigint;
UPDATE ${s}.pets SET arrival = id;
ALTER TABLE ${s}.pets ALTER COLUMN arrival SET NOT NULL;
CREATE UNIQUE INDEX pets_arrival ON ${s}.pets (arrival);
CREATE INDEX pets_status_arrival ON ${s}.pets (status, arrival);
COMMENT ON COLUMN ${s}.pets.arrival IS 'The order animals were stored here, which lists follow; given under the pet_ids lock, so it is also the order they became visible.';

CREATE TABLE ${s}.sync_leases (
  scope text NOT NULL,
  first_id bigint NOT NULL CHECK (first_id BETWEEN 1 AND 9007199254740991),
  last_id bigint NOT NULL CHECK (last_id BETWEEN first_id AND 9007199254740991),
  leased_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, first_id)
);
COMMENT ON TABLE ${s}.sync_leases IS 'Hub: blocks of ids leased to sync keys (scope: the fingerprint of the key); a key may push only animals with ids in its blocks.';

CREATE TABLE ${s}.sync_kiosk (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  hub text NOT NULL,
  next_id bigint NOT NULL CHECK (next_id >= 0),
  pushed_through bigint NOT NULL CHECK (pushed_through >= 0),
  checkpoint bigint NOT NULL CHECK (checkpoint >= 0)
);
COMMENT ON TABLE ${s}.sync_kiosk IS 'Kiosk: its hub, the id its next create gets (0: none left), the last animal push dealt with, and its pull checkpoint.';

CREATE TABLE ${s}.sync_kiosk_blocks (
  first_id bigint PRIMARY KEY CHECK (first_id BETWEEN 1 AND 9007199254740991),
  last_id bigint NOT NULL CHECK (last_id BETWEEN first_id AND 9007199254740991)
);
COMMENT ON TABLE ${s}.sync_kiosk_blocks IS 'Kiosk: the blocks of ids its hub leased to it; its creates take ids from them in order.';

-- As in version 2, with two changes: on a kiosk (a sync_kiosk row) ids come from its leased
-- blocks, and every new animal gets the next arrival.
CREATE OR REPLACE FUNCTION ${s}.create_pets(batch jsonb)
RETURNS TABLE (
  ordinal bigint, pet_id bigint, pet_name text, pet_category_id bigint, pet_status text,
  replayed boolean, key_fingerprint text, key_created_at bigint, key_expires_at bigint
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $create_pets$
#variable_conflict use_column
DECLARE
  counter bigint;
  wanted bigint;
  ids bigint[] := '{}';
  arrival_base bigint;
  kiosk_next bigint;
  block_last bigint;
  taking bigint;
BEGIN
  -- First the lock that orders commits. Each statement below takes a new snapshot, so it
  -- sees every create committed before this one got the lock.
  SELECT n.next_id INTO counter FROM ${s}.pet_ids AS n FOR UPDATE;

  -- How many entries are new (no live key stored), so as to take exactly that many ids.
  SELECT count(*) INTO wanted FROM jsonb_array_elements(batch) AS e(entry)
    WHERE NOT EXISTS (
      SELECT FROM ${s}.idempotency_keys AS k
      WHERE k.scope = e.entry ->> 'scope' AND k.key = e.entry ->> 'key'
        AND k.expires_at > to_timestamp((e.entry ->> 'createdAt')::numeric / 1000));
  SELECT coalesce(max(p.arrival), 0) INTO arrival_base FROM ${s}.pets AS p;

  SELECT k.next_id INTO kiosk_next FROM ${s}.sync_kiosk AS k FOR UPDATE;
  IF FOUND THEN
    -- A kiosk: the next ids of its blocks, in order, moving into the next block as one runs out.
    WHILE cardinality(ids) < wanted LOOP
      IF kiosk_next = 0 THEN
        RAISE EXCEPTION 'this kiosk has no leased id left' USING ERRCODE = '${NO_KIOSK_IDS}';
      END IF;
      SELECT b.last_id INTO block_last FROM ${s}.sync_kiosk_blocks AS b
        WHERE b.first_id <= kiosk_next ORDER BY b.first_id DESC LIMIT 1;
      block_last := greatest(coalesce(block_last, kiosk_next), kiosk_next);
      taking := least(wanted - cardinality(ids), block_last - kiosk_next + 1);
      ids := ids || ARRAY(SELECT generate_series(kiosk_next, kiosk_next + taking - 1));
      IF kiosk_next + taking <= block_last THEN
        kiosk_next := kiosk_next + taking;
      ELSE
        SELECT coalesce(min(b.first_id), 0) INTO kiosk_next FROM ${s}.sync_kiosk_blocks AS b WHERE b.first_id > block_last;
      END IF;
    END LOOP;
    UPDATE ${s}.sync_kiosk SET next_id = kiosk_next;
  ELSE
    ids := ARRAY(SELECT generate_series(counter, counter + wanted - 1));
    UPDATE ${s}.pet_ids SET next_id = counter + wanted;
    -- Arrival stays equal to id while nothing arrived out of id order.
    arrival_base := greatest(arrival_base, counter - 1);
  END IF;

  RETURN QUERY
  WITH input AS (
    SELECT e.ordinal,
      e.entry ->> 'name' AS name,
      (e.entry ->> 'categoryId')::bigint AS category_id,
      e.entry ->> 'status' AS status,
      e.entry ->> 'scope' AS scope,
      e.entry ->> 'key' AS key,
      e.entry ->> 'fingerprint' AS fingerprint,
      to_timestamp((e.entry ->> 'createdAt')::numeric / 1000) AS created_at,
      to_timestamp((e.entry ->> 'expiresAt')::numeric / 1000) AS expires_at
    FROM jsonb_array_elements(batch) WITH ORDINALITY AS e(entry, ordinal)
  ),
  found AS (
    SELECT i.ordinal, k.pet_id, k.fingerprint, k.created_at, k.expires_at
    FROM input AS i
    JOIN ${s}.idempotency_keys AS k ON k.scope = i.scope AND k.key = i.key AND k.expires_at > i.created_at
  ),
  numbered AS (
    SELECT i.*, row_number() OVER (ORDER BY i.ordinal) AS position
    FROM input AS i
    WHERE NOT EXISTS (SELECT FROM found AS f WHERE f.ordinal = i.ordinal)
  ),
  fresh AS (
    SELECT n.*, ids[n.position] AS id FROM numbered AS n
  ),
  new_pets AS (
    INSERT INTO ${s}.pets (id, name, category_id, status, arrival)
    SELECT f.id, f.name, f.category_id, f.status, arrival_base + f.position FROM fresh AS f
  ),
  new_keys AS (
    -- A conflict here is an expired key with the same scope and key: the new one replaces it.
    INSERT INTO ${s}.idempotency_keys AS k (scope, key, fingerprint, pet_id, created_at, expires_at)
    SELECT f.scope, f.key, f.fingerprint, f.id, f.created_at, f.expires_at FROM fresh AS f WHERE f.key IS NOT NULL
    ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, pet_id = EXCLUDED.pet_id,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  )
  SELECT f.ordinal, f.id, f.name, f.category_id, f.status, false, f.fingerprint, ${epochMilliseconds('f.created_at')}, ${epochMilliseconds('f.expires_at')}
  FROM fresh AS f
  UNION ALL
  SELECT o.ordinal, p.id, p.name, p.category_id, p.status, true, o.fingerprint, ${epochMilliseconds('o.created_at')}, ${epochMilliseconds('o.expires_at')}
  FROM found AS o JOIN ${s}.pets AS p ON p.id = o.pet_id
  ORDER BY 1;
END
$create_pets$;
`,
};
