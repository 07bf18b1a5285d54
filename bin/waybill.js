#!/usr/bin/env node
// waybill's command line. Needs Node 24 (it runs the TypeScript sources directly); when an
// older node starts it, hand over to the Node 24 that `npm install` put in node_modules.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(`waybill needs Node 24 or newer (this is ${process.version}); run "npm install" first.\n`);
    process.exit(1);
  }
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
} else {
  const { runCli } = await import('../src/cli/main.ts');
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
  // Let stdout drain, but never hang on a stray timer.
  setTimeout(() => process.exit(code), 2_000).unref();
}
