// "Did you mean": the known name a mistyped one was probably meant to be (an option `colums`,
// a connector `erp-mian`, a type `catalog-flie`). Pure, tested without a database.

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, stopping past `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  // Three rows of the optimal-string-alignment table: two back for a swap of neighbours.
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    before = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The known name closest to `given`, when it is near enough to be a slip: at most 1 edit for
 * names of up to 4 characters, 2 for longer ones (case ignored). null when none is, or when two
 * are equally near (a guess between them would mislead).
 */
export function nearMiss(given: string, known: Iterable<string>): string | null {
  const g = given.toLowerCase();
  const max = g.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = max + 1;
  let tie = false;
  for (const name of known) {
    const d = editDistance(g, name.toLowerCase(), max);
    if (d === 0 && name !== given) return name;
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) {
      tie = true;
    }
  }
  return best !== null && bestDistance <= max && !tie ? best : null;
}

/** " (did you mean columns?)" or "". */
export const didYouMean = (given: string, known: Iterable<string>): string => {
  const name = nearMiss(given, known);
  return name === null ? '' : ` (did you mean ${name}?)`;
};
