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
import { didYouMean, nearMiss } from '../../validation/near-miss.ts';
import type { AnyConnectorDefinition } from '../../../connectors/sdk/index.ts';

export const NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

const Entry = Type.Object(
  {
    name: Type.String({ pattern: NAME_PATTERN, description: 'lower-case letters, digits, - and _ (used in URLs and job keys)' }),
    type: Type.String({ minLength: 1 }),
    shop_pk: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    /** node-cron: 5 fields (minute...) or 6 (second first); absent or null: only run now / pushed requests. */
    schedule: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    enabled: Type.Optional(Type.Boolean()),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

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

/** The property names a schema allows at a path of property names (for "did you mean"). */
function propertiesAt(schema: TSchema, segments: string[]): string[] {
  let node = schema as { properties?: Record<string, unknown> };
  for (const s of segments) {
    const next = node.properties?.[s] as typeof node | undefined;
    if (next === undefined) return [];
    node = next;
  }
  return Object.keys(node.properties ?? {});
}

/**
 * `value`'s problems under `schema`, one line per field; the schema's defaults are filled into
 * `value`. A field it does not know is named with the known one it was probably meant to be.
 */
function schemaProblems(schema: TSchema, value: unknown, prefix: string, where: string): string[] {
  return configFaults(validate(schema, value)).map((f) => {
    const segments = f.pointer
      .split('/')
      .slice(1)
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    const hint = f.rule === 'is not a known option' ? didYouMean(segments.at(-1)!, propertiesAt(schema, segments.slice(0, -1))) : '';
    return `${where}: ${field(prefix, f.pointer)}: ${f.rule}${hint}`;
  });
}

/** The options a type's schema marks as folders. */
const folderOptions = (schema: TSchema): string[] =>
  Object.entries((schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {})
    .filter(([, property]) => property['x-folder'] === true)
    .map(([key]) => key);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates the parsed file against the registry; returns the instances or throws a ConfigError
 * listing every problem of every entry at once (a bad name does not hide a bad type, nor a bad
 * type a bad schedule). Relative folder options resolve against baseDir (the file's folder).
 */
export function parseConnectorsConfig(
  raw: unknown,
  registry: readonly AnyConnectorDefinition[],
  source: string,
  env?: Env,
  baseDir = process.cwd(),
): ConnectorInstance[] {
  const problems: string[] = [];
  if (!isObject(raw) || !Array.isArray(raw.connectors)) {
    const hint = isObject(raw) ? didYouMean(Object.keys(raw).find((k) => k !== 'connectors') ?? '', ['connectors']) : '';
    throw new ConfigError([`${source}: must be an object {"connectors": [...]}${hint}`]);
  }
  const byType = new Map(registry.map((d) => [d.type, d]));
  const seen = new Set<string>();
  const instances: ConnectorInstance[] = [];
  raw.connectors.forEach((entry: unknown, i) => {
    const named = isObject(entry) && typeof entry.name === 'string' ? ` "${entry.name}"` : '';
    const where = `${source}: connectors[${i}]${named}`;
    const before = problems.length;
    if (!isObject(entry)) {
      problems.push(`${where}: must be an object {"name", "type", "shop_pk", "schedule", "options"}`);
      return;
    }
    // Each field on its own: the entry's schema (name, shop_pk, enabled, unknown fields), the
    // type, the schedule and the type's options are all checked, whatever the others hold.
    problems.push(...schemaProblems(Entry, { ...entry, options: isObject(entry.options) ? {} : entry.options }, '', where));
    const e = entry as {
      name?: unknown;
      type?: unknown;
      shop_pk?: number | null;
      schedule?: unknown;
      enabled?: boolean;
      options?: unknown;
    };
    if (typeof e.name === 'string') {
      if (seen.has(e.name)) problems.push(`${where}: name: "${e.name}" is used by an earlier entry`);
      seen.add(e.name);
    }
    const definition = typeof e.type === 'string' ? byType.get(e.type) : undefined;
    if (typeof e.type === 'string' && definition === undefined) {
      const hint = nearMiss(e.type, byType.keys());
      problems.push(
        `${where}: type: unknown connector type "${e.type}" (${hint === null ? '' : `did you mean ${hint}? `}known: ${[...byType.keys()].join(', ')})`,
      );
    }
    if (definition?.needsShop === true && (e.shop_pk === undefined || e.shop_pk === null))
      problems.push(`${where}: shop_pk: is required for type ${definition.type}`);
    const schedule = typeof e.schedule === 'string' ? e.schedule : null;
    if (schedule !== null) {
      const check = cron.validateDetailed(schedule);
      if (!check.valid) {
        const why = check.errors.map((x) => `${x.field}${x.value === undefined ? '' : ` "${x.value}"`}: ${x.message}`).join('; ');
        problems.push(`${where}: schedule: "${schedule}" is not a valid cron expression (${why || 'use 5 or 6 fields'})`);
      }
    }
    // Validated as the copy kept, which the check fills with the type's defaults.
    const options = structuredClone(isObject(e.options) ? e.options : {});
    if (definition !== undefined) {
      problems.push(...schemaProblems(definition.options, options, 'options', where));
      for (const key of folderOptions(definition.options)) {
        if (typeof options[key] === 'string') options[key] = path.resolve(baseDir, options[key]);
      }
    }
    // Secrets are named by env var (`*_env` options): a variable that is not set is named now, not at 3 a.m.
    for (const [key, value] of Object.entries(options)) {
      if (key.endsWith('_env') && typeof value === 'string' && secretFromEnv(value, env) === undefined) {
        problems.push(`${where}: options.${key}: the environment variable ${value} is not set`);
      }
    }
    if (problems.length > before || definition === undefined) return;
    instances.push({
      name: e.name as string,
      type: definition.type,
      definition,
      shopPk: e.shop_pk ?? null,
      schedule,
      enabled: e.enabled ?? true,
      options,
    });
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
        problems.push(
          `${source}: connectors[${i}] "${inst.name}": options.${key}: cannot create ${String(inst.options[key])}: ${(error as Error).message}`,
        );
      }
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return instances;
}
