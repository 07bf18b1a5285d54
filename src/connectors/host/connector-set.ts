// The connector instances of this process: the WAYBILL_CONNECTORS file as last read. Read once
// at start; read again on `reload()` (SIGHUP, the dashboard's Reload), which swaps the set only
// when the whole file is valid and tells its listeners (the scheduler) what changed. A change
// of the file on disk is logged, not applied: a half-saved file must not stop a connector.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { notFound } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { nearMiss } from '../../validation/near-miss.ts';
import type { AnyConnectorDefinition } from '../../../connectors/sdk/index.ts';
import { loadConnectorsFile, type ConnectorInstance } from './config-file.ts';

export interface ReloadResult {
  /** Every connector now, by name. */
  connectors: string[];
  added: string[];
  removed: string[];
  /** Entries whose type, shop, schedule, enabled or options changed. */
  changed: string[];
}

type Listener = (result: ReloadResult) => void;

/** How often the file's size and mtime are compared, ms (fs.watchFile polls: editors replace files by renaming). */
const WATCH_INTERVAL_MS = 2_000;

const shape = (i: ConnectorInstance): string => JSON.stringify([i.type, i.shopPk, i.schedule, i.enabled, i.options]);

const digest = (file: string): string | null => {
  try {
    return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch {
    return null;
  }
};

export class ConnectorSet {
  readonly #file: string;
  readonly #types: readonly AnyConnectorDefinition[];
  #instances: Map<string, ConnectorInstance> | null = null;
  /** sha256 of the file as last read (null: there was none). */
  #readDigest: string | null = null;
  readonly #listeners = new Set<Listener>();

  constructor(file: string, types: readonly AnyConnectorDefinition[], instances?: ConnectorInstance[]) {
    this.#file = file;
    this.#types = types;
    if (instances !== undefined) this.#instances = new Map(instances.map((i) => [i.name, i]));
  }

  get file(): string {
    return this.#file;
  }

  /** The instances; the file is read (and checked) on first use. Throws a ConfigError naming every problem. */
  list(): ConnectorInstance[] {
    if (this.#instances === null) this.#instances = this.#read();
    return [...this.#instances.values()];
  }

  /** One instance; 404 naming the connector it was probably meant to be. */
  get(name: string): ConnectorInstance {
    const inst = (this.list(), this.#instances!.get(name));
    if (inst !== undefined) return inst;
    const near = nearMiss(name, this.#instances!.keys());
    const error = notFound(`Connector ${name}`);
    if (near !== null) error.message = `Connector ${name} was not found (did you mean ${near}?).`;
    throw error;
  }

  /**
   * Reads the file again. A bad file changes nothing (the ConfigError names every problem);
   * a good one replaces the set, and the listeners hear what changed.
   */
  reload(): ReloadResult {
    const before = this.#instances ?? new Map<string, ConnectorInstance>();
    const next = this.#read();
    this.#instances = next;
    const result: ReloadResult = {
      connectors: [...next.keys()],
      added: [...next.keys()].filter((n) => !before.has(n)),
      removed: [...before.keys()].filter((n) => !next.has(n)),
      changed: [...next.values()].filter((i) => before.has(i.name) && shape(before.get(i.name)!) !== shape(i)).map((i) => i.name),
    };
    for (const listener of this.#listeners) listener(result);
    return result;
  }

  /** Calls `listener` after each successful reload; returns how to stop. */
  onReload(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Logs one line when the file on disk stops matching what was read (each new content once),
   * saying how to apply it. Returns how to stop watching.
   */
  watchFile(log: Logger): () => void {
    let reported = this.#readDigest;
    const check = (): void => {
      const now = digest(this.#file);
      if (now === this.#readDigest || now === reported) return;
      reported = now;
      log.warn(
        { file: this.#file },
        now === null
          ? "the connectors file was removed on disk; the connectors read at start keep running (reload: SIGHUP or Reload on the dashboard's Connectors page)"
          : "the connectors file changed on disk; not applied until reloaded (SIGHUP, or Reload on the dashboard's Connectors page)",
      );
    };
    const listener = (): void => check();
    fs.watchFile(this.#file, { interval: WATCH_INTERVAL_MS, persistent: false }, listener);
    return () => fs.unwatchFile(this.#file, listener);
  }

  #read(): Map<string, ConnectorInstance> {
    const text = digest(this.#file);
    const list = loadConnectorsFile(this.#file, this.#types);
    this.#readDigest = text;
    return new Map(list.map((i) => [i.name, i]));
  }
}
