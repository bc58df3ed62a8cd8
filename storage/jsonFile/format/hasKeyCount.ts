/** @module Whether a parsed JSON object has exactly so many keys, without listing them. */

/**
 * Whether `value` (an object JSON.parse made) has exactly `count` enumerable keys.
 * `Object.keys` would make an array per object: at a million animals, a million arrays of
 * garbage during a start. Keys a polluted prototype adds are counted too, which only makes a
 * sound object look odd, and the callers then ask valibot.
 */
export const hasKeyCount = (value: object, count: number): boolean => {
  let keys = 0;
  for (const _key in value) if (++keys > count) return false;
  return keys === count;
};
