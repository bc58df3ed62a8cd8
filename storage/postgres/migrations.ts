/**
 * @module The versions of the storage's schema, oldest first: each one's SQL, applied once
 * and in order by `migrate`. A version, once released, never changes; later needs are new
 * versions that only add (never drop or rewrite what holds animals).
 */

import { epochMilliseconds } from './epochMilliseconds.js';
import { version4 } from './jsonTextMigration.js';
import type { Migration } from './Migration.js';
import { version3 } from './syncMigration.js';

/**
 * Version 1: the animals, where their ids come from, the Idempotency-Keys, and the function
 * every create goes through.
 *
 * Why a counter row and not a sequence: a sequence hands out ids at once but transactions
 * commit in any order, so id 8 could become visible before id 7 and a client paging past 8
 * would never see 7. Every create instead locks the one row of `pet_ids` first and holds it
 * until its commit, so creates commit one after another, in id order, on every instance.
 * The lock is held for one round trip and one WAL flush per batch (group commit), not per animal.
 */
const version1: Migration = {
  version: 1,
  description: 'pets, pet_ids, idempotency_keys and create_pets(batch)',
  sql: (s) => `
CREATE TABLE ${s}.pets (
  id bigint PRIMARY KEY CHECK (id BETWEEN 1 AND 9007199254740991),
  name text NOT NULL,
  category_id bigint NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
  status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
);
COMMENT ON TABLE ${s}.pets IS 'The animals of animal-store; ids ascend in the order they became visible.';
CREATE INDEX pets_status_id ON ${s}.pets (status, id);

CREATE TABLE ${s}.pet_ids (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  next_id bigint NOT NULL CHECK (next_id BETWEEN 1 AND 9007199254740992)
);
COMMENT ON TABLE ${s}.pet_ids IS 'The id the next animal gets; every create locks this row until it commits, so ids become visible in order.';
INSERT INTO ${s}.pet_ids (next_id) VALUES (1);

CREATE TABLE ${s}.idempotency_keys (
  scope text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  pet_id bigint NOT NULL REFERENCES ${s}.pets (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);
COMMENT ON TABLE ${s}.idempotency_keys IS 'Idempotency-Keys of POST /pets, per API key (scope), each with the animal it created.';
CREATE INDEX idempotency_keys_expires_at ON ${s}.idempotency_keys (expires_at);

-- Creates a batch of animals in one statement, so a batch costs one round trip and one commit.
-- batch: a JSON array of {name, categoryId, status} with, for a keyed create, {scope, key,
-- fingerprint, createdAt, expiresAt} (milliseconds since the epoch); no two entries share a
-- scope and key. Answers one row per entry, in order: the animal (new, or the one a live key
-- stands for), whether it was a replay, and the key as stored.
CREATE FUNCTION ${s}.create_pets(batch jsonb)
RETURNS TABLE (
  ordinal bigint, pet_id bigint, pet_name text, pet_category_id bigint, pet_status text,
  replayed boolean, key_fingerprint text, key_created_at bigint, key_expires_at bigint
)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $create_pets$
#variable_conflict use_column
DECLARE
  first_id bigint;
  newest timestamptz;
BEGIN
  -- First the lock that orders commits (see the table's comment). Each statement below takes
  -- a new snapshot, so it sees every create committed before this one got the lock.
  SELECT n.next_id INTO first_id FROM ${s}.pet_ids AS n FOR UPDATE;

  -- Keys expired by the newest key's arrival count as absent: forget a bounded number of them.
  SELECT max(to_timestamp((e.entry ->> 'createdAt')::numeric / 1000)) INTO newest
    FROM jsonb_array_elements(batch) AS e(entry) WHERE e.entry ? 'key';
  IF newest IS NOT NULL THEN
    DELETE FROM ${s}.idempotency_keys AS k
      WHERE k.ctid = ANY (ARRAY(SELECT x.ctid FROM ${s}.idempotency_keys AS x WHERE x.expires_at <= newest LIMIT 1000));
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
  fresh AS (
    SELECT i.*, first_id + row_number() OVER (ORDER BY i.ordinal) - 1 AS id
    FROM input AS i
    WHERE NOT EXISTS (SELECT FROM found AS f WHERE f.ordinal = i.ordinal)
  ),
  new_pets AS (
    INSERT INTO ${s}.pets (id, name, category_id, status)
    SELECT f.id, f.name, f.category_id, f.status FROM fresh AS f
  ),
  new_keys AS (
    -- A conflict here is an expired key with the same scope and key: the new one replaces it.
    INSERT INTO ${s}.idempotency_keys AS k (scope, key, fingerprint, pet_id, created_at, expires_at)
    SELECT f.scope, f.key, f.fingerprint, f.id, f.created_at, f.expires_at FROM fresh AS f WHERE f.key IS NOT NULL
    ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, pet_id = EXCLUDED.pet_id,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  ),
  moved_on AS (
    UPDATE ${s}.pet_ids SET next_id = first_id + (SELECT count(*) FROM fresh)
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

/**
 * Version 2: `create_pets` no longer deletes expired keys (up to 1,000 per batch, paid by
 * whichever create came along); each instance deletes them on a timer instead, a bounded
 * batch at a time (`sweepKeys` in petStatements.ts), using the index on `expires_at`.
 */
const version2: Migration = {
  version: 2,
  description: 'create_pets(batch) leaves expired keys to a periodic, bounded delete',
  sql: (s) => `
-- As in version 1, without forgetting expired keys: a lookup counts them as absent already.
-- batch: a JSON array of {name, categoryId, status} with, for a keyed create, {scope, key,
-- fingerprint, createdAt, expiresAt} (milliseconds since the epoch); no two entries share a
-- scope and key. Answers one row per entry, in order: the animal (new, or the one a live key
-- stands for), whether it was a replay, and the key as stored.
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
  first_id bigint;
BEGIN
  -- First the lock that orders commits (see the table's comment). Each statement below takes
  -- a new snapshot, so it sees every create committed before this one got the lock.
  SELECT n.next_id INTO first_id FROM ${s}.pet_ids AS n FOR UPDATE;

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
  fresh AS (
    SELECT i.*, first_id + row_number() OVER (ORDER BY i.ordinal) - 1 AS id
    FROM input AS i
    WHERE NOT EXISTS (SELECT FROM found AS f WHERE f.ordinal = i.ordinal)
  ),
  new_pets AS (
    INSERT INTO ${s}.pets (id, name, category_id, status)
    SELECT f.id, f.name, f.category_id, f.status FROM fresh AS f
  ),
  new_keys AS (
    -- A conflict here is an expired key with the same scope and key: the new one replaces it.
    INSERT INTO ${s}.idempotency_keys AS k (scope, key, fingerprint, pet_id, created_at, expires_at)
    SELECT f.scope, f.key, f.fingerprint, f.id, f.created_at, f.expires_at FROM fresh AS f WHERE f.key IS NOT NULL
    ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, pet_id = EXCLUDED.pet_id,
      created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  ),
  moved_on AS (
    UPDATE ${s}.pet_ids SET next_id = first_id + (SELECT count(*) FROM fresh)
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

/** Every version, oldest first. */
export const MIGRATIONS: readonly Migration[] = [version1, version2, version3, version4];

/** The version this code needs: the newest it knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
