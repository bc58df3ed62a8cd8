/** @module One version of the storage's schema, as `migrations.ts` lists them and `migrate` applies them. */

/** One version of the schema. */
export interface Migration {
  /** 1, 2, 3, …: recorded in `schema_migrations` once applied. */
  version: number;
  /** What it does, recorded beside the version for an operator reading the table. */
  description: string;
  /** Its statements, for the schema `schema` (a quoted identifier). */
  sql(schema: string): string;
}
