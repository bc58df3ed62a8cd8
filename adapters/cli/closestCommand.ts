/** @module The command a mistyped word most likely meant, as commander suggests for flags. */

/** The edits (insert, delete, replace, swap two neighbours) between two words: Damerau–Levenshtein, as commander's own. */
const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
};

/**
 * The command `word` is closest to, when it is a likely typo of one (`serv`, `cpoy`); else
 * `undefined`. Commander suggests so for unknown commands, but not when a default command
 * takes an argument (`serve [FILE]`), where the word arrives as that argument.
 */
export const closestCommand = (word: string, commands: readonly string[]): string | undefined => {
  let closest: string | undefined;
  let closestDistance = Number.POSITIVE_INFINITY;
  for (const command of commands) {
    const distance = editDistance(word.toLowerCase(), command);
    // At most 2 edits, and fewer than half of the word: `pets` is not a typo of `serve`.
    if (distance <= 2 && distance < Math.max(word.length, command.length) / 2 && distance < closestDistance) {
      closest = command;
      closestDistance = distance;
    }
  }
  return closest;
};
