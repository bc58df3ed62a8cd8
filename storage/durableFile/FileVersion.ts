/** @module What tells one version of a file from another without reading it, and whose the file is. */
import type { BigIntStats } from 'node:fs';

/** What tells one version of the file from another without reading it. */
export interface FileVersion {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** The version of the file these stats describe. */
export const versionOf = ({ dev, ino, size, mtimeNs, ctimeNs }: BigIntStats): FileVersion => ({ dev, ino, size, mtimeNs, ctimeNs });

/** Whether two versions are the same file, unchanged. */
export const sameVersion = (one: FileVersion, other: FileVersion): boolean =>
  one.dev === other.dev &&
  one.ino === other.ino &&
  one.size === other.size &&
  one.mtimeNs === other.mtimeNs &&
  one.ctimeNs === other.ctimeNs;

/** The file's permissions and owner, which each replacement is given before it takes the file's place. */
export interface Ownership {
  mode: number;
  uid: number;
  gid: number;
}

/** The owner, group and permissions these stats describe. */
export const ownershipOf = ({ mode, uid, gid }: BigIntStats): Ownership => ({
  mode: Number(mode & 0o7777n),
  uid: Number(uid),
  gid: Number(gid),
});
