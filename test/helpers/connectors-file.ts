// A connectors file (WAYBILL_CONNECTORS) in a temp folder, for tests that configure connectors.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix = 'wb-conn-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Writes {"connectors": entries} and returns its path. */
export function connectorsFile(entries: Record<string, unknown>[]): string {
  const file = path.join(tempDir(), 'connectors.json');
  fs.writeFileSync(file, JSON.stringify({ connectors: entries }, null, 2));
  return file;
}
