// "Did you mean": the known name closest to an unknown one, by edit distance (case-insensitive, so a
// wrong capital is always found), or undefined when nothing is close enough to be a likely typo.

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest candidate within max(2, a third of the name's length) edits; ties go to the first. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(name.length / 3));
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d <= limit && (!best || d < best.d)) best = { c, d };
  }
  return best?.c;
}

/** ` (did you mean "X"?)` or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const c = closestName(name, candidates);
  return c === undefined ? '' : ` (did you mean ${JSON.stringify(c)}?)`;
}
