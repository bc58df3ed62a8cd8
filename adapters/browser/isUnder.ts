/** @module Whether a path lies under a base path. */

/** True for `base` itself and for paths below it (`/v1`, `/v1/pets`), not for `/v10`. */
export const isUnder = (path: string, base: string): boolean => {
  const trimmed = base.replace(/\/+$/, '');
  return path === trimmed || path.startsWith(`${trimmed}/`);
};
