// The WAYBILL_CONNECTORS file: read once at start-up, each entry validated against the
// registry (type known, options per the type's schema, cron expression). Every problem is
// reported at once, each named by entry and field; a missing file means no connectors.
// Folder options (marked `'x-folder': true` in a type's schema, like catalog-file's inbox) are
// read relative to the file's own folder, so a copied example works wherever it is started from;
// a relative one is created when missing.
import fs from 'node:fs';
import path from 'node:path';
import cron from 'node-cron';
import { Type, type TSchema } from 'typebox';
import { configFaults, ConfigError, secretFromEnv } from '../../config.ts';
import { validate } from '../../validation/ajv.ts';
import type { AnyConnectorDefinition } from '../../../connectors/sdk/index.ts';

export const NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

const Entry = Type.Object({
  name: Type.String({ pattern: NAME_PATTERN, description: 'lower-case letters, digits, - and _ (used in URLs and job keys)' }),
  type: Type.String({ minLength: 1 }),
  shop_pk: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  /** node-cron: 5 fields (minute...) or 6 (second first); absent or null: only run now / pushed requests. */
  schedule: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
  enabled: Type.Optional(Type.Boolean()),
  options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false });

/** One connector instance, ready to run. */
export interface ConnectorInstance {
  name: string;
  type: string;
  definition: AnyConnectorDefinition;
  shopPk: number | null;
  schedule: string | null;
  /** As the file says; the admin may override it (stored in the database). */
  enabled: boolean;
  options: Record<string, unknown>;
}

type Env = Record<string, string | undefined>;

/** A JSON pointer (`/settle_ms`) as a dotted field (`options.settle_ms`). */
const field = (prefix: string, pointer: string): string =>
  [prefix, ...pointer.split('/').map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))].filter((p) => p !== '').join('.') || '(entry)';

/** `value`'s problems under `schema`, one line per field; the schema's defaults are filled into `value`. */
const schemaProblems = (schema: TSchema, value: unknown, prefix: string, where: string): string[] =>
  configFaults(validate(schema, value)).map((f) => `${where}: ${field(prefix, f.pointer)}: ${f.rule}`);

/** The options a type's schema marks as folders. */
const folderOptions = (schema: TSchema): string[] =>
  Object.entries((schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {})
    .filter(([, property]) => property['x-folder'] === true).map(([key]) => key);

/**
 * Validates the parsed file against the registry; returns the instances or throws a ConfigError
 * listing every problem. Relative folder options resolve against baseDir (the file's folder).
 */
export function parseConnectorsConfig(raw: unknown, registry: readonly AnyConnectorDefinition[], source: string, env?: Env, baseDir = process.cwd()): ConnectorInstance[] {
  const problems: string[] = [];
  const entries = (raw as { connectors?: unknown } | null)?.connectors;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !Array.isArray(entries)) {
    throw new ConfigError([`${source}: must be an object {"connectors": [...]}`]);
  }
  const byType = new Map(registry.map((d) => [d.type, d]));
  const seen = new Set<string>();
  const instances: ConnectorInstance[] = [];
  entries.forEach((entry: unknown, i) => {
    const named = typeof (entry as { name?: unknown })?.name === 'string' ? ` "${(entry as { name: string }).name}"` : '';
    const where = `${source}: connectors[${i}]${named}`;
    const before = problems.length;
    problems.push(...schemaProblems(Entry, entry, '', where));
    if (problems.length > before) return;
    const e = entry as { name: string; type: string; shop_pk?: number | null; schedule?: string | null; enabled?: boolean; options?: Record<string, unknown> };
    if (seen.has(e.name)) problems.push(`${where}: name: "${e.name}" is used by an earlier entry`);
    seen.add(e.name);
    const definition = byType.get(e.type);
    if (definition === undefined) {
      problems.push(`${where}: type: unknown connector type "${e.type}" (known: ${[...byType.keys()].join(', ')})`);
      return;
    }
    if (definition.needsShop === true && (e.shop_pk === undefined || e.shop_pk === null)) problems.push(`${where}: shop_pk: is required for type ${e.type}`);
    const schedule = e.schedule ?? null;
    if (schedule !== null) {
      const check = cron.validateDetailed(schedule);
      if (!check.valid) {
        const why = check.errors.map((x) => `${x.field}${x.value === undefined ? '' : ` "${x.value}"`}: ${x.message}`).join('; ');
        problems.push(`${where}: schedule: "${schedule}" is not a valid cron expression (${why || 'use 5 or 6 fields'})`);
      }
    }
    // Validated as the copy kept, which the check fills with the type's defaults.
    const options = structuredClone(e.options ?? {});
    problems.push(...schemaProblems(definition.options, options, 'options', where));
    for (const key of folderOptions(definition.options)) {
      if (typeof options[key] === 'string') options[key] = path.resolve(baseDir, options[key]);
    }
    // Secrets are named by env var (`*_env` options): a variable that is not set is named now, not at 3 a.m.
    for (const [key, value] of Object.entries(options)) {
      if (key.endsWith('_env') && typeof value === 'string' && secretFromEnv(value, env) === undefined) {
        problems.push(`${where}: options.${key}: the environment variable ${value} is not set`);
      }
    }
    instances.push({ name: e.name, type: e.type, definition, shopPk: e.shop_pk ?? null, schedule, enabled: e.enabled ?? true, options });
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return instances;
}

/** Reads and validates the file; a file that does not exist means no connectors. */
export function loadConnectorsFile(file: string, registry: readonly AnyConnectorDefinition[], env?: Env): ConnectorInstance[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw new ConfigError([`WAYBILL_CONNECTORS (${file}): cannot be read: ${(error as Error).message}`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([`WAYBILL_CONNECTORS (${file}): is not valid JSON: ${(error as Error).message}`]);
  }
  const source = `WAYBILL_CONNECTORS (${file})`;
  const instances = parseConnectorsConfig(raw, registry, source, env, path.dirname(path.resolve(file)));
  const entries = (raw as { connectors: { options?: Record<string, unknown> }[] }).connectors;
  const problems: string[] = [];
  instances.forEach((inst, i) => {
    for (const key of folderOptions(inst.definition.options)) {
      // Only a relative folder (one next to the file, like the example's) is made: a missing
      // absolute one is more likely a typo or an unmounted share, and its runs say so.
      const given = entries[i]?.options?.[key];
      if (typeof given !== 'string' || path.isAbsolute(given)) continue;
      try {
        fs.mkdirSync(inst.options[key] as string, { recursive: true });
      } catch (error) {
        problems.push(`${source}: connectors[${i}] "${inst.name}": options.${key}: cannot create ${String(inst.options[key])}: ${(error as Error).message}`);
      }
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return instances;
}
