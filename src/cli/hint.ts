// The first steps the daemon prints while it has no shop: the exact commands, with the
// environment that makes them reach this daemon's database from any folder.
import type { Config } from '../config.ts';

/** Quotes a value for a POSIX shell when it needs it. */
const shellQuote = (value: string): string => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`);

/**
 * The variables a CLI command needs to act on this daemon's data: its database (DATABASE_URL
 * with the password left for the user to fill in, or the absolute data folder) and, when no
 * WAYBILL_SECRET_KEY is set, the data folder that holds secret.key (webhook secrets sealed with
 * another key could not be opened by the daemon).
 */
export function cliEnvironment(config: Config): string {
  const parts: string[] = [];
  if (config.databaseUrl !== undefined) {
    const url = new URL(config.databaseUrl);
    if (url.password !== '') url.password = 'PASSWORD';
    parts.push(`DATABASE_URL=${shellQuote(url.toString())}`);
  }
  if (config.databaseUrl === undefined || config.secretKey === undefined) parts.push(`WAYBILL_DATA_DIR=${shellQuote(config.dataDir)}`);
  if (config.secretKey !== undefined) parts.push('WAYBILL_SECRET_KEY="$WAYBILL_SECRET_KEY"');
  return parts.join(' ');
}

/** The log line a daemon without shops prints: create a shop, then its key. */
export function firstShopHint(config: Config): string {
  const env = cliEnvironment(config);
  return `No shop yet. Create one with: ${env} npx waybill shops create --name "My shop"   then a key with: ${env} npx waybill keys create --shop 1`;
}
