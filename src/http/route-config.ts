// What a route declares about itself in `config`; the global hooks act on it.
import 'fastify';
import type { Principal } from '../shops/shops.schemas.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** 'shop': an `Authorization: Token <key>` of the shop in the path. 'admin': the admin token. */
    auth?: 'shop' | 'admin';
    /** The exact Allow header of the path, sent on every reply of the route. */
    allow?: string;
    /** Honour `Idempotency-Key` (POST/PUT/DELETE that cause work). */
    idempotent?: boolean;
    /** Serves HTML: the JSON-only Accept rule does not apply. */
    html?: boolean;
    /** Serves these media types (a shipping label): the route answers 406 itself when Accept admits none. */
    produces?: readonly string[];
    /** The body may be left out: an empty one is no body, whatever its Content-Type. */
    bodyOptional?: boolean;
  }
  interface FastifyRequest {
    /** Set by the auth hook on routes with `config.auth = 'shop'`. */
    principal: Principal | null;
  }
}
