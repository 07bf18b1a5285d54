// Shops and their API keys. A key is random (40+ characters), shown once, stored as sha256.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/database.ts';
import { AppError, notFound } from '../errors.ts';
import * as repo from './shops.repository.ts';
import type { ApiKey, CreatedApiKey, Principal, Shop, ShopCreate } from './shops.schemas.ts';

const KEY_PREFIX_LENGTH = 11; // "wb_" + 8 characters
/** How long a checked key is trusted without asking the database again, ms. */
const AUTH_CACHE_MS = 2_000;

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

type ShopRow = Awaited<ReturnType<typeof repo.listShops>>[number];
type KeyRow = Awaited<ReturnType<typeof repo.listKeys>>[number];

const toShop = (row: ShopRow): Shop => ({
  pk: row.pk,
  name: row.name,
  webhook_url: row.webhook_url,
  created_at: row.created_at.toISOString(),
});

const toKey = (row: KeyRow): ApiKey => ({
  prefix: row.prefix,
  shop_pk: row.shop_pk,
  label: row.label,
  created_at: row.created_at.toISOString(),
  revoked_at: row.revoked_at?.toISOString() ?? null,
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

export class ShopService {
  readonly #db: Db;
  readonly #authCache = new Map<string, { principal: Principal | null; until: number }>();

  constructor(db: Db) {
    this.#db = db;
  }

  async create(input: ShopCreate): Promise<Shop> {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    return toShop(await repo.insertShop(this.#db, { name: input.name, webhook_url: input.webhook_url ?? null, webhook_secret: secret }));
  }

  async list(): Promise<Shop[]> {
    return (await repo.listShops(this.#db)).map(toShop);
  }

  async get(pk: number): Promise<Shop> {
    const row = await repo.findShop(this.#db, pk);
    if (row === undefined) throw notFound(`Shop ${pk}`);
    return toShop(row);
  }

  async exists(pk: number): Promise<boolean> {
    return (await repo.findShop(this.#db, pk)) !== undefined;
  }

  /** Where and how to sign this shop's webhooks; null when it has no webhook URL. */
  async webhookTarget(pk: number): Promise<{ url: string; secret: string } | null> {
    const row = await repo.findShop(this.#db, pk);
    return row?.webhook_url ? { url: row.webhook_url, secret: row.webhook_secret } : null;
  }

  async count(): Promise<number> {
    return repo.countShops(this.#db);
  }

  async update(pk: number, patch: { name?: string; webhook_url?: string | null }): Promise<Shop> {
    const row = await repo.updateShop(this.#db, pk, patch);
    if (row === undefined) throw notFound(`Shop ${pk}`);
    return toShop(row);
  }

  async createKey(shopPk: number, label: string | null = null): Promise<CreatedApiKey> {
    await this.get(shopPk);
    const key = `wb_${randomBytes(30).toString('base64url')}`;
    const row = await repo.insertKey(this.#db, { shop_pk: shopPk, prefix: key.slice(0, KEY_PREFIX_LENGTH), hash: hashKey(key), label });
    return { key, ...toKey(row) };
  }

  async listKeys(shopPk?: number): Promise<ApiKey[]> {
    return (await repo.listKeys(this.#db, shopPk)).map(toKey);
  }

  async revokeKey(prefix: string): Promise<ApiKey> {
    const row = await repo.revokeKey(this.#db, prefix);
    if (row === undefined) {
      const existing = await repo.findKeyByPrefix(this.#db, prefix);
      if (existing === undefined) throw notFound(`Key ${prefix}`);
      throw new AppError('already_revoked', 409, `Key ${prefix} was already revoked.`);
    }
    this.#authCache.clear();
    return toKey(row);
  }

  /** The shop a key belongs to, or null for a missing, unknown or revoked key. */
  async authenticate(key: string | undefined): Promise<Principal | null> {
    if (key === undefined || key.length < 20 || key.length > 200) return null;
    const hash = hashKey(key);
    const now = Date.now();
    const cached = this.#authCache.get(hash);
    if (cached !== undefined && cached.until > now) return cached.principal;
    const row = await repo.findActiveKeyByHash(this.#db, hash);
    const principal = row === undefined ? null : { shopPk: row.shop_pk, keyPrefix: row.prefix };
    if (this.#authCache.size > 10_000) this.#authCache.clear();
    this.#authCache.set(hash, { principal, until: now + AUTH_CACHE_MS });
    if (row !== undefined && (row.last_used_at === null || now - row.last_used_at.getTime() > 60_000)) {
      void repo.touchKey(this.#db, row.prefix).catch(() => undefined);
    }
    return principal;
  }
}
