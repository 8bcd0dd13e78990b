// How far apart two words are, for "did you mean …?" hints and near-miss keys.

/**
 * The edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of neighbours, each one
 * edit), or `limit + 1` as soon as it is known to be over `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] as number) + 1);
      current.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] as number, limit + 1);
}

/**
 * The option `found` most likely meant: the nearest one, case aside, within a third of its length (at most 3
 * edits); else one that `found` begins or ends (`timeout` for `timeout_seconds`). Undefined when nothing is that
 * close, or `found` is one of the options.
 */
export function closest(found: string, options: readonly string[]): string | undefined {
  if (options.includes(found) || found.length > 200) return undefined;
  const word = found.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const option of options) {
    const limit = Math.min(3, Math.max(1, Math.floor(option.length / 3)));
    const distance = editDistance(word, option.toLowerCase(), limit);
    if (distance <= limit && distance < bestDistance) {
      best = option;
      bestDistance = distance;
    }
  }
  if (best !== undefined || word.length < 4) return best;
  return options.find((option) => option.toLowerCase().startsWith(word) || word.startsWith(option.toLowerCase()));
}
