import { describe, expect, it } from 'vitest';
import { migrate } from '../../../storage/postgres/migrate.js';
import type { PostgresPool } from '../../../storage/postgres/PostgresPool.js';
import { PostgresStorageError } from '../../../storage/postgres/PostgresStorageError.js';

/** A pool in front of a server of the given version with no schema yet; it records every statement and every connection asked for. */
const serverOf = (number: number, name: string) => {
  const sent: string[] = [];
  let connections = 0;
  const pool: PostgresPool = {
    async query(text) {
      sent.push(text);
      if (text.includes('to_regclass')) return { rows: [{ present: false }] };
      if (text.includes('server_version_num')) return { rows: [{ number, name }] };
      throw new Error(`unexpected statement: ${text}`);
    },
    async connect() {
      connections++;
      throw new Error('no connection should be taken');
    },
    async end() {},
  };
  return { pool, sent, connections: () => connections };
};

describe('migrate: the PostgreSQL server it needs', () => {
  it('Should refuse a server older than 14 with a clear error, before changing anything', async () => {
    const server = serverOf(130_012, '13.12');
    const migrating = migrate(server.pool, 'animal_store');
    await expect(migrating).rejects.toThrow(PostgresStorageError);
    await expect(migrating).rejects.toThrow(
      'The PostgreSQL server is version 13.12, and animal-store needs 14 or later to create or upgrade its schema; nothing was changed.',
    );
    expect(server.connections()).toBe(0);
    expect(server.sent.some((text) => /CREATE|BEGIN|ALTER|INSERT/.test(text))).toBe(false);
  });

  it('Should go on to take a connection for the changes on a server of 14 or later', async () => {
    const server = serverOf(140_000, '14.0');
    await expect(migrate(server.pool, 'animal_store')).rejects.toThrow('no connection should be taken');
    expect(server.connections()).toBe(1);
  });
});
