/** @module What tells one version of a file from another without reading it, and whose the file is. */
import type { BigIntStats } from 'node:fs';

/** Which file a name or a handle leads to, whatever it holds: its device and inode. */
export interface Inode {
  dev: bigint;
  ino: bigint;
}

/** The inode these stats describe. */
export const inodeOf = ({ dev, ino }: Inode): Inode => ({ dev, ino });

/** Whether two inodes (or the stats of two) are the same file. */
export const sameInode = (one: Inode, other: Inode): boolean => one.dev === other.dev && one.ino === other.ino;

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
  sameInode(one, other) && one.size === other.size && one.mtimeNs === other.mtimeNs && one.ctimeNs === other.ctimeNs;

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
