// Shops' webhook secrets must be usable for HMAC, so they cannot be hashed like API keys; so
// that a database dump alone does not give them away, they are stored sealed with AES-256-GCM
// under a key kept outside the database: WAYBILL_SECRET_KEY, else a random key in
// <data dir>/secret.key (made at first need, mode 0600). Whoever has the dump and that key has
// the secrets; the dump alone has ciphertext.
// Sealed form: "sealed:v1:<key id>:<base64url of iv | tag | ciphertext>"; the key id (8 hex
// characters of a hash of the key) lets a process holding another key say so plainly.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretKeySource {
  /** WAYBILL_SECRET_KEY: any text of 32 characters or more. */
  key?: string;
  /** Where the generated key lives when `key` is unset. */
  file: string;
}

/** Reads the key file, or makes it: written aside then linked in, so two processes starting together agree on one key. */
function keyFromFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(aside, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(aside, { force: true });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

export class SecretBox {
  readonly #source: SecretKeySource;
  #key: { bytes: Buffer; id: string } | null = null;
  #material: string | null = null;

  constructor(source: SecretKeySource) {
    this.#source = source;
  }

  static fromConfig(config: Pick<Config, 'secretKey' | 'dataDir'>): SecretBox {
    return new SecretBox({ key: config.secretKey, file: path.join(config.dataDir, 'secret.key') });
  }

  /** Loaded at first use: commands that never touch a secret make no key file. */
  #loaded(): { bytes: Buffer; id: string } {
    if (this.#key === null) {
      const bytes = this.deriveKey('webhook secrets');
      this.#key = { bytes, id: createHash('sha256').update(bytes).digest('hex').slice(0, 8) };
    }
    return this.#key;
  }

  /**
   * A 32-byte key for one purpose (e.g. signing label URLs), derived with HKDF from the same
   * key material: every process with the same WAYBILL_SECRET_KEY or secret.key derives the same
   * key, and no purpose's key tells anything of another's.
   */
  deriveKey(purpose: string): Buffer {
    this.#material ??= this.#source.key ?? keyFromFile(this.#source.file);
    return Buffer.from(hkdfSync('sha256', this.#material, 'waybill', purpose, 32));
  }

  #where(): string {
    return this.#source.key !== undefined ? 'WAYBILL_SECRET_KEY' : this.#source.file;
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  seal(plain: string): string {
    const key = this.#loaded();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${key.id}:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url')}`;
  }

  /** The secret; a value stored before sealing existed comes back as it is. */
  open(stored: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const key = this.#loaded();
    const [id, packed] = stored.slice(PREFIX.length).split(':');
    // 503: transient, so a delivery is retried (perhaps by a replica that has the right key).
    if (id !== key.id) {
      throw new AppError(
        'secret_key_mismatch',
        503,
        `A webhook secret was sealed with key ${id}, but this process's key (${this.#where()}) is ${key.id}: give every process the same WAYBILL_SECRET_KEY or secret.key.`,
      );
    }
    const raw = Buffer.from(packed ?? '', 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.bytes, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new AppError('secret_unreadable', 500, 'A sealed webhook secret does not open with this key (changed in the database?).', {
        cause: error,
      });
    }
  }
}
