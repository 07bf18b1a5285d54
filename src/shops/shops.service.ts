// Shops and their API keys. A key is random (40+ characters), shown once, stored as sha256.
// A shop's webhook secret is shown when it is made (create, rotate) and stored sealed.
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Db, Executor } from '../db/database.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import type { DestinationPolicy } from '../outbound/destination-policy.ts';
import { SecretBox } from './secret-box.ts';
import { isShopTier, SHOP_TIERS } from './shop-tiers.ts';
import * as repo from './shops.repository.ts';
import type { Marketplace } from '../marketplaces/marketplaces.schemas.ts';
import { formatTimestamp } from '../validation/timestamp.ts';
import type { ApiShop, ApiKey, CreatedApiKey, CreatedShop, Principal, RotatedSecret, Shop, ShopCreate } from './shops.schemas.ts';

const KEY_PREFIX_LENGTH = 11; // "wb_" + 8 characters
/** How long a checked key is trusted without asking the database again, ms. */
const AUTH_CACHE_MS = 2_000;
/** How long a rotated-out webhook secret keeps signing beside the new one, ms (24 h). */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** Standard Webhooks form: "whsec_" + base64 of 24 random bytes. */
const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Where and how to sign a shop's webhooks. */
export interface WebhookTarget {
  url: string;
  /** The current secret: both signatures use it. */
  secret: string;
  /** The secret before the last rotation, while it still signs (webhook-signature only); else null. */
  previous: string | null;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

type ShopRow = Awaited<ReturnType<typeof repo.listShops>>[number];
type KeyRow = Awaited<ReturnType<typeof repo.listKeys>>[number];

const toShop = (row: ShopRow): Shop => ({
  pk: row.pk,
  name: row.name,
  webhook_url: row.webhook_url,
  tier: row.tier,
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
  readonly #destinations: DestinationPolicy;
  readonly #secrets: SecretBox;
  readonly #authCache = new LRUCache<string, { principal: Principal | null }>({ max: 10_000, ttl: AUTH_CACHE_MS });

  /**
   * `destinations`: where webhook URLs may point (default: no internal address allowed);
   * `secrets`: what seals webhook secrets in the database.
   */
  constructor(db: Db, destinations: DestinationPolicy, secrets: SecretBox) {
    this.#db = db;
    this.#destinations = destinations;
    this.#secrets = secrets;
  }

  /** Every way a webhook URL is set comes through here (CLI, admin API, dashboard). */
  #checkWebhookUrl(url: string | null | undefined): void {
    if (url === null || url === undefined) return;
    const why = this.#destinations.refusal(url);
    if (why !== null)
      throw badRequest(`webhook_url ${why}.`, [{ pointer: '/webhook_url', code: 'destination_refused', message: `webhook_url ${why}` }]);
  }

  /** A new shop with its webhook secret: the only reply besides rotateSecret's that shows it. */
  async create(input: ShopCreate): Promise<CreatedShop> {
    this.#checkWebhookUrl(input.webhook_url);
    const secret = newWebhookSecret();
    const row = await repo.insertShop(this.#db, {
      name: input.name,
      webhook_url: input.webhook_url ?? null,
      webhook_secret: this.#secrets.seal(secret),
    });
    return { ...toShop(row), webhook_secret: secret };
  }

  /**
   * A new webhook secret for the shop, returned once. X-Madkting-Signature uses it from now on;
   * webhook-signature carries a signature with the old one too for SECRET_OVERLAP_MS, so a
   * receiver that checks that header keeps accepting deliveries while it switches.
   */
  async rotateSecret(pk: number): Promise<RotatedSecret> {
    const secret = newWebhookSecret();
    const until = new Date(Date.now() + SECRET_OVERLAP_MS);
    const row = await repo.rotateSecret(this.#db, pk, this.#secrets.seal(secret), until);
    if (row === undefined) throw notFound(`Shop ${pk}`);
    return { pk, webhook_secret: secret, previous_secret_valid_until: until.toISOString() };
  }

  /** Seals secrets stored before they were sealed (an upgraded database); how many. */
  async sealPlaintextSecrets(): Promise<number> {
    let n = 0;
    for (const row of await repo.listPlaintextSecrets(this.#db)) {
      const seal = (v: string | null): string | null => (v === null || SecretBox.isSealed(v) ? v : this.#secrets.seal(v));
      n += await repo.replaceSecrets(this.#db, row, {
        webhook_secret: seal(row.webhook_secret)!,
        webhook_secret_previous: seal(row.webhook_secret_previous),
      });
    }
    return n;
  }

  async list(): Promise<Shop[]> {
    return (await repo.listShops(this.#db)).map(toShop);
  }

  async get(pk: number): Promise<Shop> {
    const row = await repo.findShop(this.#db, pk);
    if (row === undefined) throw notFound(`Shop ${pk}`);
    return toShop(row);
  }

  /** The shop as the marketplace API shows it: every registered marketplace is open to it. */
  async apiShop(pk: number, marketplaces: { list(): Promise<Marketplace[]> }): Promise<ApiShop> {
    const [shop, mps] = await Promise.all([this.get(pk), marketplaces.list()]);
    return {
      pk: shop.pk,
      name: shop.name,
      marketplaces: mps.map((m) => ({ pk: m.pk, name: m.name })),
      created_at: formatTimestamp(new Date(shop.created_at)),
    };
  }

  async exists(pk: number): Promise<boolean> {
    return (await repo.findShop(this.#db, pk)) !== undefined;
  }

  /** Where and how to sign this shop's webhooks; null when it has no webhook URL. */
  async webhookTarget(pk: number): Promise<WebhookTarget | null> {
    const row = await repo.findShop(this.#db, pk);
    if (!row?.webhook_url) return null;
    const overlapping = row.webhook_secret_previous !== null && (row.webhook_secret_previous_until?.getTime() ?? 0) > Date.now();
    return {
      url: row.webhook_url,
      secret: this.#secrets.open(row.webhook_secret),
      previous: overlapping ? this.#secrets.open(row.webhook_secret_previous!) : null,
    };
  }

  /** `db`: the caller's transaction, when it holds one (a second connection could wait on a full pool). */
  async hasWebhook(pk: number, db: Executor = this.#db): Promise<boolean> {
    return Boolean((await repo.findShop(db, pk))?.webhook_url);
  }

  async count(): Promise<number> {
    return repo.countShops(this.#db);
  }

  async update(pk: number, patch: { name?: string; webhook_url?: string | null; tier?: string }): Promise<Shop> {
    this.#checkWebhookUrl(patch.webhook_url);
    if (patch.tier !== undefined && !isShopTier(patch.tier)) {
      throw badRequest(`Unknown tier "${patch.tier}"; one of ${Object.keys(SHOP_TIERS).join(', ')}.`, [
        { pointer: '/tier', code: 'enum', message: `must be one of ${Object.keys(SHOP_TIERS).join(', ')}` },
      ]);
    }
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
    if (cached !== undefined) return cached.principal;
    const row = await repo.findActiveKeyByHash(this.#db, hash);
    const principal = row === undefined ? null : { shopPk: row.shop_pk, keyPrefix: row.prefix };
    this.#authCache.set(hash, { principal });
    if (row !== undefined && (row.last_used_at === null || now - row.last_used_at.getTime() > 60_000)) {
      void repo.touchKey(this.#db, row.prefix).catch(() => undefined);
    }
    return principal;
  }
}
