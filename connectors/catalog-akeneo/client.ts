// Akeneo PIM REST API: an OAuth2 token (POST /api/oauth/v1/token, password grant with the API
// connection's client id and secret as HTTP Basic; renewed by its refresh token a minute before
// it expires, and at once on a 401), products by `updated` with search_after paging
// (`_links.next.href`), product models by code, and the variants of a model by `parent`.
import { ApiError, joinUrl, type Api, type ApiRequest, type ApiResponse } from '../sdk/index.ts';
import type { AkeneoModel, AkeneoProduct } from './map.ts';

/** Items per page: the API's maximum. */
export const LIMIT = 100;
/** A token is renewed this long before Akeneo says it expires (ms), or at half its life when shorter. */
const RENEW_BEFORE_MS = 60_000;

export interface AkeneoCredentials {
  clientId: string;
  secret: string;
  username: string;
  password: string;
}

interface Token {
  access: string;
  refresh: string | null;
  expiresAt: number;
}

export class AkeneoClient {
  readonly #api: Api;
  readonly #base: string;
  readonly #creds: AkeneoCredentials;
  #token: Token | null = null;

  constructor(api: Api, baseUrl: string, creds: AkeneoCredentials) {
    this.#api = api;
    this.#base = baseUrl;
    this.#creds = creds;
  }

  async #grant(body: Record<string, string>): Promise<Token> {
    const basic = Buffer.from(`${this.#creds.clientId}:${this.#creds.secret}`).toString('base64');
    const started = Date.now();
    const res = await this.#api({
      method: 'POST',
      url: joinUrl(this.#base, '/api/oauth/v1/token'),
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const t = res.body as { access_token?: string; refresh_token?: string; expires_in?: number };
    if (typeof t.access_token !== 'string') throw new ApiError('Akeneo answered the token request without an access_token', res.status);
    const life = (t.expires_in ?? 3600) * 1000;
    return { access: t.access_token, refresh: t.refresh_token ?? null, expiresAt: started + life - Math.min(RENEW_BEFORE_MS, life / 2) };
  }

  async #access(): Promise<string> {
    if (this.#token !== null && Date.now() < this.#token.expiresAt) return this.#token.access;
    const refresh = this.#token?.refresh ?? null;
    this.#token = null;
    if (refresh !== null) {
      try {
        this.#token = await this.#grant({ grant_type: 'refresh_token', refresh_token: refresh });
      } catch (error) {
        // An expired or revoked refresh token: the password grant again.
        if (!(error instanceof ApiError) || error.retryable) throw error;
      }
    }
    this.#token ??= await this.#grant({ grant_type: 'password', username: this.#creds.username, password: this.#creds.password });
    return this.#token.access;
  }

  /** A GET with the token; a 401 (token revoked or expired early) gets a new token and one more try. */
  async get(url: string): Promise<ApiResponse> {
    const call = async (): Promise<ApiResponse> =>
      this.#api({ url, headers: { authorization: `Bearer ${await this.#access()}` } } satisfies ApiRequest);
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 401) throw error;
      // Renewed by its refresh token (the password grant when that is refused too).
      if (this.#token !== null) this.#token = { ...this.#token, expiresAt: 0 };
      return call();
    }
  }

  url(path: string, query: Record<string, string> = {}): string {
    const q = new URLSearchParams(query).toString();
    return `${joinUrl(this.#base, path)}${q === '' ? '' : `?${q}`}`;
  }

  /** Pages of a list, following `_links.next.href` (search_after). */
  async *list<T>(url: string): AsyncGenerator<T[]> {
    let next: string | undefined = url;
    while (next !== undefined) {
      const body = (await this.get(next)).body as { _embedded?: { items?: T[] }; _links?: { next?: { href?: string } } };
      yield body._embedded?.items ?? [];
      next = body._links?.next?.href;
    }
  }

  /** Products updated after `since` (null: all), a page at a time. */
  products(since: Date | null): AsyncGenerator<AkeneoProduct[]> {
    const query: Record<string, string> = { pagination_type: 'search_after', limit: String(LIMIT), with_count: 'false' };
    // Akeneo compares `updated` as "YYYY-MM-DD hh:mm:ss".
    if (since !== null)
      query.search = JSON.stringify({ updated: [{ operator: '>', value: since.toISOString().slice(0, 19).replace('T', ' ') }] });
    return this.list<AkeneoProduct>(this.url('/api/rest/v1/products', query));
  }

  async model(code: string): Promise<AkeneoModel> {
    return (await this.get(this.url(`/api/rest/v1/product-models/${encodeURIComponent(code)}`))).body as AkeneoModel;
  }

  /** Every variant product under a model (its sub-models' included). */
  async variants(modelCode: string): Promise<AkeneoProduct[]> {
    const all: AkeneoProduct[] = [];
    const query = {
      pagination_type: 'search_after',
      limit: String(LIMIT),
      search: JSON.stringify({ parent: [{ operator: 'IN', value: [modelCode] }] }),
    };
    for await (const page of this.list<AkeneoProduct>(this.url('/api/rest/v1/products', query))) all.push(...page);
    return all;
  }
}
