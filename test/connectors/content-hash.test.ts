// Delta detection's content hash: one text per content whatever the key order, and the same
// hashes as the ones already stored (an upgrade must not make every product look changed).
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash } from '../../src/catalog/content-hash.ts';

/** The definition, written plainly: keys sorted at every level, undefined members dropped. */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const o = value as Record<string, unknown>;
  const members = Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference(o[k])}`);
  return `{${members.join(',')}}`;
}

/** A deterministic pseudo-random sequence (the test must not be flaky). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

describe('contentHash', () => {
  it('is the sha256 of the sorted-key JSON, as stored by earlier versions', () => {
    const product = {
      sku: 'TS-1',
      name: 'T-shirt',
      price: 19.9,
      stock: 12,
      images: ['https://cdn.example.com/ts1.jpg'],
      variations: [
        { sku: 'TS-1-M', size: 'M' },
        { stock: 0, sku: 'TS-1-L', size: 'L' },
      ],
    };
    expect(contentHash(product)).toBe('f5677f144f46dbac1027960221227adeb3ef8510ce16545c75268686024d85d7');
  });

  it('gives one text whatever the order of keys, at every level', () => {
    const a = { sku: 'A', price: 1, variations: [{ size: 'S', sku: 'A-S' }], images: ['u'], note: undefined };
    const b = { images: ['u'], price: 1, sku: 'A', variations: [{ sku: 'A-S', size: 'S' }] };
    expect(canonicalJson(a)).toBe('{"images":["u"],"price":1,"sku":"A","variations":[{"size":"S","sku":"A-S"}]}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    expect(contentHash(b)).toBe(contentHash(a));
  });

  it('equals the plain definition on odd values: integer-like keys, null prototypes, undefined in arrays, dates', () => {
    const odd: unknown[] = [
      { 10: 'x', 2: 'y', a: 1 },
      { b: 1, 10: 'x' },
      Object.assign(Object.create(null) as object, { z: 1, a: [undefined, null, Number.NaN, -0] }),
      { when: new Date(0), text: 'é"\\\n', '': 0 },
      [[], {}, [{}], 'a'],
      'text',
      1.5,
      null,
      true,
    ];
    for (const v of odd) expect(canonicalJson(v)).toBe(reference(v));
  });

  it('equals the plain definition on thousands of generated values', () => {
    const next = random(7);
    const keys = ['a', 'b', 'B', '10', '2', 'z', 'é', 'a b', 'sku', 'variations', ''];
    const value = (depth: number): unknown => {
      const r = next();
      if (depth > 3 || r < 0.3) return [null, 1, -0, 1.5e300, 'x', '"q"', true, false, undefined][Math.floor(next() * 9)];
      if (r < 0.5) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      const chosen = keys.filter(() => next() < 0.4);
      // Half of them already in sorted order (the fast path), half shuffled.
      if (next() < 0.5) chosen.reverse();
      for (const k of chosen) o[k] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 5_000; i++) {
      const v = value(0);
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });
});
