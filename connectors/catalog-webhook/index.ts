// catalog-webhook: a PIM posts products (the body of the products POST) to
// POST /connectors/{name}/webhook, signed per Standard Webhooks. Checked: signature (HMAC-
// SHA256 over id.timestamp.body, secret from the env var named by secret_env), timestamp
// within tolerance (replays), webhook-id (duplicates get the first reply, applied once).
import { Type } from 'typebox';
import { bodyItems } from '../../src/catalog/product-validation.ts';
import { defineConnector } from '../../src/connectors/host/contract.ts';
import { AppError, badRequest } from '../../src/errors.ts';
import { presentApi } from '../../src/feeds/feeds.service.ts';
import { verify } from '../../src/webhooks/signature.ts';

export const CatalogWebhookOptions = Type.Object({
  /** Env var holding the signing secret ("whsec_<base64>" or plain text). */
  secret_env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
  /** Allowed clock difference of webhook-timestamp, seconds (Standard Webhooks: 5 minutes). */
  tolerance_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 300 }),
}, { additionalProperties: false });

export const catalogWebhook = defineConnector({
  type: 'catalog-webhook',
  description: 'A PIM posts products, signed per Standard Webhooks; each delivery becomes a product feed.',
  options: CatalogWebhookOptions,
  needsShop: true,
  // Push only: a scheduled run has nothing to fetch.
  async run() {},
  receivers: {
    async webhook(request, ctx) {
      const body = request.rawBody.toString('utf8');
      const checked = verify(ctx.secret(ctx.options.secret_env), request.headers, body, { toleranceSeconds: ctx.options.tolerance_seconds });
      if (!checked.ok) {
        ctx.log.warn({ reason: checked.reason }, 'webhook refused');
        throw new AppError('invalid_signature', 401, `The webhook signature was refused: ${checked.reason}.`, { headers: { 'www-authenticate': 'Standard-Webhooks' } });
      }
      const id = String(request.headers['webhook-id']);
      return ctx.once(id, async () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          throw new AppError('invalid_json', 400, 'The body is not valid JSON.');
        }
        const { items, single, errors } = bodyItems(parsed);
        if (errors.length > 0) throw badRequest('The body must be a product or a non-empty array of products.', errors);
        // Validated (and capped) by the feed service like a products POST. Pushed content is
        // sent whole (the PIM decided it changed); each product's content hash is recorded when
        // the feed applies it, so a later file export compares against what the catalog holds.
        const feed = await ctx.services.feeds.submit({
          shopPk: ctx.shopPk!, type: 'product_create', items, single, source: `connector:${ctx.name}`, baseUrl: request.baseUrl, contentHashes: true,
        });
        ctx.report.feed(feed.pk);
        ctx.report.count('products_sent', feed.counts.total);
        const json = presentApi(feed, request.baseUrl);
        ctx.log.info({ webhookId: id, feed: feed.pk, products: feed.counts.total }, 'webhook accepted');
        return { status: 202, headers: { location: json.url }, body: json };
      });
    },
  },
});
