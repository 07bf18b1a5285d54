#!/usr/bin/env node
// waybill's command line. Needs Node 24 (it runs the TypeScript sources directly); when an
// older node starts it, hand over to the Node 24 that `npm install` put in node_modules.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The daemon's V8 heap sizing, the one place waybill sets it: with V8's defaults the heap grows
// with the work (bulk writes, catalog files) instead of collecting sooner. Measured in
// docs/benchmarks.md (Connectors); flags the user gives (NODE_OPTIONS or node's own) win.
const DAEMON_V8_FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=1024'];
const daemonFlags = () => {
  if (process.argv[2] !== 'start') return [];
  const given = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
  return DAEMON_V8_FLAGS.filter((f) => !given.includes(f.split('=')[0]));
};

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    process.stderr.write(`waybill needs Node 24 or newer (this is ${process.version}); run "npm install" first.\n`);
    process.exit(1);
  }
  const child = spawn(pinned, [...daemonFlags(), fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
} else if (daemonFlags().length > 0) {
  // Heap sizes are fixed when the process starts: replace this process by one with the flags
  // (same pid, so signals, supervisors and kill -9 reach the daemon itself).
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...daemonFlags(), fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    process.env,
  );
} else {
  const { runCli } = await import('../src/cli/main.ts');
  const code = await runCli(process.argv.slice(2));
  process.exitCode = code;
  // Let stdout drain, but never hang on a stray timer.
  setTimeout(() => process.exit(code), 2_000).unref();
}
