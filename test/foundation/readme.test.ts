// The README's reference tables say what the code does: its configuration table lists exactly
// the variables src/config.ts reads, and its command-line table exactly the commands the CLI
// defines, each with its options. A variable, command or option added to one and not the
// other fails here.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envNames } from '../../src/config.ts';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.ts';
import { repoRoot } from '../helpers/cli.ts';

const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');

/** The first cells of the table rows under a `## ` heading. */
function firstCells(heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README section "${heading}"`).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
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

  it('lists every command the CLI defines with its options, and no other', () => {
    const leaves = (cmd: Command, prefix: string[]): [string, string[]][] =>
      cmd.commands.length === 0
        ? [
            [
              prefix.join(' '),
              cmd.options
                .map((o) => o.long!)
                .filter((o) => o !== '--json' && o !== '--help')
                .sort(),
            ],
          ]
        : cmd.commands.flatMap((sub) => leaves(sub, [...prefix, sub.name()]));
    const cli = leaves(buildProgram(), []);
    expect(cli.length).toBeGreaterThan(5);
    const documented = firstCells('Command line').map((cell): [string, string[]] => [
      commandOf(cell),
      (cell.match(/--[a-z-]+/g) ?? []).sort(),
    ]);
    expect(documented.sort()).toEqual(cli.sort());
  });

  it('points at nothing outside the repository: no sibling folders, issue numbers or work sessions', () => {
    const outside = [
      /\.\.\/shared\//,
      /\b(this|latest|previous|last) session\b/i,
      /\bissues?\s+#\d+/i,
      /github\.com\/[^/\s]+\/[^/\s]+\/issues\/\d+/,
    ];
    const files = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\n')
      .filter((f) => /\.(md|ts|js|json)$|^Dockerfile$/.test(f) && f !== 'package-lock.json' && !f.endsWith('readme.test.ts'));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => {
      const text = fs.readFileSync(path.join(repoRoot, f), 'utf8');
      return outside.filter((re) => re.test(text)).map((re) => `${f}: ${String(re)}`);
    });
    expect(found).toEqual([]);
  });
});
