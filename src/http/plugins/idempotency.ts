// Idempotency-Key on routes with `config.idempotent`: a replay answers the stored first reply.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { IdempotencyService } from '../../idempotency/idempotency.service.ts';

declare module 'fastify' {
  interface FastifyRequest {
    idempotency: { shopPk: number; key: string } | null;
  }
}

/** Reply headers worth replaying; the rest (date, request id) belong to the new reply. */
const KEPT_HEADERS = ['location', 'content-type'];

export const idempotencyPlugin = fp(async (app: FastifyInstance, { idempotency }: { idempotency: IdempotencyService }) => {
  app.decorateRequest('idempotency', null);

  app.addHook('preHandler', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    if (request.routeOptions.config?.idempotent !== true || typeof key !== 'string') return;
    const shopPk = request.principal?.shopPk ?? 0;
    const claim = await idempotency.claim(shopPk, key, request.method, request.url, request.body);
    if (claim.kind === 'replay') {
      reply.header('idempotent-replayed', 'true');
      for (const [k, v] of Object.entries(claim.reply.headers)) reply.header(k, v);
      return reply.code(claim.reply.status).send(claim.reply.body === 'null' ? undefined : claim.reply.body);
    }
    request.idempotency = { shopPk, key };
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (claim === null || claim === undefined) return payload;
    request.idempotency = null;
    const headers: Record<string, string> = {};
    for (const h of KEPT_HEADERS) {
      const v = reply.getHeader(h);
      if (v !== undefined) headers[h] = String(v);
    }
    const body = typeof payload === 'string' && payload.length > 0 ? payload : 'null';
    await idempotency.finish(claim.shopPk, claim.key, { status: reply.statusCode, headers, body });
    return payload;
  });
});
