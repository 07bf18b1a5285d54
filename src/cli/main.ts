// waybill <command>: parses arguments, loads config, runs one command, sets the exit code.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { connectorsCommand } from './commands/connectors.command.ts';
import { keysCommand } from './commands/keys.command.ts';
import { marketplacesCommand } from './commands/marketplaces.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { shopsCommand } from './commands/shops.command.ts';
import { startCommand } from './commands/start.command.ts';
import type { CliContext } from './context.ts';
import { createOutput } from './output.ts';
import { USAGE, UsageError } from './usage.ts';

export async function runCli(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        role: { type: 'string' },
        name: { type: 'string' },
        'webhook-url': { type: 'string' },
        shop: { type: 'string' },
        label: { type: 'string' },
        pk: { type: 'string' },
      },
    });
  } catch (error) {
    process.stderr.write(`waybill: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }

  let ctx: CliContext;
  try {
    const config = loadConfig();
    const daemon = command === 'start';
    const logger = createLogger({ level: daemon ? config.logLevel : (process.env.LOG_LEVEL ?? 'warn'), fd: daemon ? 1 : 2 });
    ctx = { config, logger, out: createOutput(values.json) };
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`waybill: ${error.message}\n`);
      return 2;
    }
    throw error;
  }

  try {
    switch (command) {
      case 'start': return await startCommand(ctx, values);
      case 'migrate': return await migrateCommand(ctx);
      case 'shops': return await shopsCommand(ctx, rest, values);
      case 'keys': return await keysCommand(ctx, rest, values);
      case 'marketplaces': return await marketplacesCommand(ctx, rest, values);
      case 'connectors': return await connectorsCommand(ctx, rest);
      default: throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`waybill: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof AppError || error instanceof ConfigError) {
      if (ctx.out.json) process.stdout.write(`${JSON.stringify({ error: { code: error instanceof AppError ? error.code : 'invalid_config', message: error.message } })}\n`);
      process.stderr.write(`waybill: ${error.message}\n`);
      // A configuration error (the connectors file, read by the command) exits 2 like one of
      // the environment's, as the README's exit codes say.
      return error instanceof ConfigError ? 2 : 1;
    }
    ctx.logger.fatal({ err: error }, 'command failed');
    process.stderr.write(`waybill: ${(error as Error).message}\n`);
    return 1;
  }
}
