/** @module The PostgreSQL example runs two instances on one database, against a real server. */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../support/testDatabase.js';
import { killLeftoverExamples, runExample } from './runExample.js';

const database = useTestDatabase();
afterEach(killLeftoverExamples);

describe('examples/postgres', () => {
  it('creates through two instances on one database and follows a cursor from one on the other', async () => {
    const url = await database.freshDatabase();
    const { code, stdout, stderr } = await runExample('examples/postgres/main.ts', { env: { DATABASE_URL: url } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/instance one on http:\/\/127\.0\.0\.1:\d+\/v1, instance two on http:\/\/127\.0\.0\.1:\d+\/v1, one database/);
    expect(stdout).toContain('created #1 Biscuit through instance one');
    expect(stdout).toContain('created #2 Nimbus through instance two');
    expect(stdout).toContain('created #3 Pepper through instance one');
    expect(stdout).toContain('instance two, page 1: #1 Biscuit, #2 Nimbus');
    expect(stdout).toContain('instance one, page 2: #3 Pepper');
    expect(stdout).toContain('health: {"ok":true}');
    // The animals outlive the instances, in the database's animal_store schema.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query('SELECT id::int, name FROM animal_store.pets ORDER BY id');
    await client.end();
    expect(rows).toEqual([
      { id: 1, name: 'Biscuit' },
      { id: 2, name: 'Nimbus' },
      { id: 3, name: 'Pepper' },
    ]);
  });

  it('says what it needs when no database is given, exit code 2', async () => {
    const { code, stderr } = await runExample('examples/postgres/main.ts', { env: { DATABASE_URL: '' } });
    expect(code).toBe(2);
    expect(stderr).toContain('Give a database: DATABASE_URL=postgres://');
  });
});
