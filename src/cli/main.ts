// waybill <command>: commander parses the arguments (per-command help, unknown options named
// with a suggestion); each action loads the config, runs, and sets the exit code:
// 0 success, 1 the command failed, 2 usage or configuration error.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { AppError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { roles } from '../main.ts';
import { connectorsList, connectorsPreview, connectorsRun } from './commands/connectors.command.ts';
import { initCommand } from './commands/init.command.ts';
import { keysCreate, keysList, keysRevoke } from './commands/keys.command.ts';
import { marketplacesCreate, marketplacesList } from './commands/marketplaces.command.ts';
import { shopsCreate, shopsList, shopsRotateSecret, shopsUpdate } from './commands/shops.command.ts';
import { SHOP_TIERS } from '../shops/shop-tiers.ts';
import { startCommand } from './commands/start.command.ts';
import { CliError, describeDatabaseError, type CliContext } from './context.ts';
import { createOutput } from './output.ts';

/** What an action receives: the command's arguments and options, already parsed. */
type Action = (ctx: CliContext, args: unknown[], options: Record<string, unknown>) => Promise<number>;

const positiveInt =
  (what: string) =>
  (value: string): number => {
    if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`${what} must be a positive integer.`);
    return Number(value);
  };
const httpUrl = (value: string): string => {
  if (!/^https?:\/\/\S+$/.test(value)) throw new InvalidArgumentError('must start with http:// or https://');
  return value;
};
const nonBlank = (value: string): string => {
  if (value.trim() === '') throw new InvalidArgumentError('must not be blank');
  return value.trim();
};

/**
 * Options a command needs. Not commander's requiredOption: commander checks those before it
 * looks for unknown options, so a typo (`--nme`) would be reported as the option missing.
 */
const requiredOptions = new WeakSet<Option>();
const required = (option: Option): Option => {
  requiredOptions.add(option);
  return option;
};

/** "waybill shops create" */
const pathOf = (cmd: Command): string => (cmd.parent === null ? cmd.name() : `${pathOf(cmd.parent)} ${cmd.name()}`);

/** A leaf's usage from its definition: required options as they must be written, the others in brackets. */
function usageOf(cmd: Command): string {
  const args = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
  const options = cmd.options.filter((o) => o.long !== '--help').map((o) => (requiredOptions.has(o) ? o.flags : `[${o.flags}]`));
  return [...args, ...options].join(' ');
}

/** Every command's error: one line, then that command's usage, all on stderr. */
function configureErrors(cmd: Command): void {
  if (cmd.commands.length === 0) cmd.usage(usageOf(cmd));
  cmd.configureOutput({
    outputError: (text, write) => {
      const message = text
        .trim()
        .replace(/^error: /, '')
        .replace(/\s*\n\s*/g, ' ');
      write(`waybill: ${message}\nUsage: ${pathOf(cmd)} ${cmd.usage()}\n(${pathOf(cmd)} --help for more)\n`);
    },
  });
  cmd.exitOverride();
  for (const sub of cmd.commands) configureErrors(sub);
}

/** The command tree; `exitCode` receives each action's result. */
export function buildProgram(exitCode: (code: number) => void = () => {}): Command {
  const act =
    (action: Action) =>
    async (...given: unknown[]): Promise<void> => {
      const cmd = given.at(-1) as Command;
      exitCode(await runAction(cmd, action, given.slice(0, -2)));
    };
  const program = new Command('waybill')
    .description('Integration daemon for shops that sell on marketplaces.')
    .showSuggestionAfterError()
    .allowExcessArguments(false)
    .hook('preAction', (_program, cmd) => {
      const missing = cmd.options.find((o) => requiredOptions.has(o) && cmd.getOptionValue(o.attributeName()) === undefined);
      if (missing !== undefined)
        cmd.error(`required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
    })
    .addHelpText(
      'after',
      `
Environment: DATABASE_URL (unset: the embedded database in WAYBILL_DATA_DIR, default ./data),
HOST, PORT, PUBLIC_URL, LOG_LEVEL, LOG_FORMAT, WAYBILL_ADMIN_TOKEN, WAYBILL_CONNECTORS, WAYBILL_SECRET_KEY...
(README.md lists them all). Commands other than start and init need an existing database.`,
    );
  const json = () => new Option('--json', 'one JSON object on stdout');

  program
    .command('start')
    .description('run the daemon until SIGTERM/SIGINT (creates the embedded database when needed); SIGHUP reloads the connectors file')
    .addOption(new Option('--role <role>', 'which parts run in this process').choices(roles).default('all'))
    .addOption(
      new Option(
        '--log-format <format>',
        'json lines, or one readable line per entry (default auto: readable on a terminal; LOG_FORMAT)',
      ).choices(['auto', 'pretty', 'json']),
    )
    .action(act(startCommand));
  program
    .command('init')
    .alias('migrate')
    .description('create the database if there is none (embedded: in WAYBILL_DATA_DIR) and apply migrations; says where')
    .addOption(json())
    .action(act(initCommand));

  const shops = program.command('shops').description('shops, their webhook URL and secret');
  shops
    .command('create')
    .description('create a shop; prints its webhook secret once')
    .addOption(required(new Option('--name <name>', "the shop's name").argParser(nonBlank)))
    .option('--webhook-url <url>', 'where its webhooks go', httpUrl)
    .addOption(json())
    .action(act(shopsCreate));
  shops.command('list').description('every shop').addOption(json()).action(act(shopsList));
  shops
    .command('update')
    .description("change a shop's name, webhook URL or tier (its share of the feed workers)")
    .argument('<shop>', "the shop's pk", positiveInt('<shop>'))
    .option('--name <name>', "the shop's name", nonBlank)
    .option('--webhook-url <url>', 'where its webhooks go', httpUrl)
    .addOption(
      new Option('--tier <tier>', 'its share of the feed workers: standard 1, large 2, xlarge 3 batches at once').choices(
        Object.keys(SHOP_TIERS),
      ),
    )
    .addOption(json())
    .action(act(shopsUpdate));
  shops
    .command('rotate-secret')
    .description('a new webhook secret, printed once; the old one keeps signing webhook-signature for 24 h')
    .argument('<shop>', "the shop's pk", positiveInt('<shop>'))
    .addOption(json())
    .action(act(shopsRotateSecret));

  const keys = program.command('keys').description('API keys of shops');
  keys
    .command('create')
    .description('create an API key for a shop; prints it once')
    .addOption(required(new Option('--shop <pk>', "the shop's pk").argParser(positiveInt('--shop'))))
    .option('--label <text>', 'a note to recognise the key by')
    .addOption(json())
    .action(act(keysCreate));
  keys
    .command('list')
    .description('keys by prefix, with last use and revocation')
    .option('--shop <pk>', "only this shop's keys", positiveInt('--shop'))
    .addOption(json())
    .action(act(keysList));
  keys
    .command('revoke')
    .description('revoke a key (a running daemon stops accepting it within 2 s)')
    .argument('<prefix>', "the key's prefix, as keys list shows it")
    .addOption(json())
    .action(act(keysRevoke));

  const marketplaces = program.command('marketplaces').description('marketplaces products and orders refer to');
  marketplaces
    .command('create')
    .description('create a marketplace')
    .addOption(required(new Option('--name <name>', 'its name').argParser(nonBlank)))
    .option('--pk <pk>', 'its pk (default: the next free one)', positiveInt('--pk'))
    .addOption(json())
    .action(act(marketplacesCreate));
  marketplaces.command('list').description('every marketplace').addOption(json()).action(act(marketplacesList));

  const connectors = program.command('connectors').description('the connectors of the WAYBILL_CONNECTORS file');
  connectors
    .command('list')
    .description("the connectors file's entries, each with its last run")
    .addOption(json())
    .action(act(connectorsList));
  connectors
    .command('run')
    .description('one run of a connector now, in this process; prints its summary')
    .argument('<name>', "the connector's name, as connectors list shows it")
    .option('--full', 'a catalog pull reads everything again instead of what changed since its last accepted cursor')
    .addOption(json())
    .action(act(connectorsRun));
  connectors
    .command('preview')
    .description(
      "what a file connector would make of a file: its first products as they would be sent (JSON) and the file's summary; writes nothing",
    )
    .argument('<name>', "the connector's name, as connectors list shows it")
    .argument('<file>', 'the file to read (it stays where it is)')
    .option('--limit <n>', 'products shown (default 5)', positiveInt('--limit'))
    .addOption(json())
    .action(act(connectorsPreview));

  configureErrors(program);
  return program;
}

/** Runs one action with its context; every failure becomes one line on stderr and an exit code. */
async function runAction(cmd: Command, action: Action, args: unknown[]): Promise<number> {
  const options = cmd.opts();
  const out = createOutput(options.json === true);
  const fail = (code: string, message: string, exitCode: number): number => {
    if (out.json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    process.stderr.write(`waybill: ${message}\n`);
    return exitCode;
  };
  let ctx: CliContext;
  try {
    const daemon = cmd.name() === 'start';
    // `start --log-format` wins over LOG_FORMAT. Other commands log warnings and worse to stderr
    // (stdout carries their result) unless LOG_LEVEL says otherwise (debug shows more).
    const env = daemon
      ? typeof options.logFormat === 'string'
        ? { ...process.env, LOG_FORMAT: options.logFormat }
        : process.env
      : { LOG_LEVEL: 'warn', ...process.env };
    const config = loadConfig(env);
    const logger = createLogger({ level: config.logLevel, format: config.logFormat, fd: daemon ? 1 : 2 });
    ctx = { config, logger, out };
  } catch (error) {
    if (error instanceof ConfigError) return fail('invalid_config', error.message, 2);
    throw error;
  }
  try {
    return await action(ctx, args, options);
  } catch (error) {
    if (error instanceof CommanderError) throw error;
    if (error instanceof CliError) return fail(error.code, error.message, error.exitCode);
    // A configuration error (the connectors file, read by the command) exits 2 like one of the environment's.
    if (error instanceof ConfigError) return fail('invalid_config', error.message, 2);
    if (error instanceof AppError) return fail(error.code, error.message, 1);
    const unreachable = describeDatabaseError(error, ctx.config);
    if (unreachable !== null) return fail(unreachable.code, unreachable.message, unreachable.exitCode);
    // Anything else is unexpected: one line here, the stack with LOG_LEVEL=debug.
    ctx.logger.debug({ err: error }, 'command failed');
    return fail('failed', `${(error as Error).message} (LOG_LEVEL=debug shows where)`, 1);
  }
}

export async function runCli(argv: string[]): Promise<number> {
  let code = 0;
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help and --version exit 0; every parse error, or a command group without its subcommand, is a usage error.
    return error.exitCode === 0 ? 0 : 2;
  }
}
