// npm run bench [-- name...]: runs bench/<name>.bench.ts one after another, each in its own
// process (so one's memory and connections don't colour the next), and prints their figures.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const all = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const chosen = wanted.length === 0 ? all : all.filter((f) => wanted.some((w) => f.startsWith(w)));
if (chosen.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}; have: ${all.join(', ')}`);
  process.exit(2);
}
let failed = 0;
for (const file of chosen) {
  console.log(`\n=== ${file} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, [path.join(dir, file)], { stdio: 'inherit', env: process.env });
  console.log(
    `=== ${file}: ${r.status === 0 ? 'done' : `FAILED (exit ${r.status})`} in ${((Date.now() - started) / 1000).toFixed(1)} s ===`,
  );
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
