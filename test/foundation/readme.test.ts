// The README's reference tables say what the code does: its configuration table lists exactly
// the variables src/config.ts reads, and its command-line table exactly the commands of the
// CLI's usage text. A variable or command added to one and not the other fails here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envNames } from '../../src/config.ts';
import { USAGE } from '../../src/cli/usage.ts';
import { repoRoot } from '../helpers/cli.ts';

const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The first cells of the table rows under a `## ` heading. */
function firstCells(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README section "${heading}"`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end).split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => /^\| `([^`]+)`/.exec(l)![1]!);
}

/** "shops create --name N [--webhook-url U]" -> "shops create": the words before any option or placeholder. */
const commandOf = (text: string): string => {
  const words: string[] = [];
  for (const w of text.replace(/^waybill\s+/, '').split(/\s+/)) {
    if (!/^[a-z][a-z-]*$/.test(w)) break;
    words.push(w);
  }
  return words.join(' ');
};

describe('README', () => {
  it('lists every configuration variable src/config.ts reads, and no other', () => {
    expect(firstCells('Configuration').sort()).toEqual(Object.values(envNames).sort());
  });

  it("lists every command of the CLI's usage text, and no other", () => {
    const usage = USAGE.split('\n').filter((l) => /^ {2}[a-z]/.test(l)).map((l) => commandOf(l.trim().split(/\s{2,}/)[0]!));
    expect(usage.length).toBeGreaterThan(5);
    expect(firstCells('Command line').map(commandOf).sort()).toEqual(usage.sort());
  });
});
