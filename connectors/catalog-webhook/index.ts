// catalog-webhook: a PIM posts products (the body of the products POST) to
// POST /connectors/{name}/webhook, signed per Standard Webhooks. Checked: signature (HMAC-
// SHA256 over id.timestamp.body, secret from the env var named by secret_env), timestamp
// within tolerance (replays), webhook-id (duplicates get the first reply, applied once).
import { Type } from 'typebox';
import { AppError, defineConnector, verifyStandardWebhook } from '../sdk/index.ts';

export const CatalogWebhookOptions = Type.Object(
  {
    /** Env var holding the signing secret ("whsec_<base64>" or plain text). */
    secret_env: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    /** Allowed clock difference of webhook-timestamp, seconds (Standard Webhooks: 5 minutes). */
    tolerance_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 300 }),
  },
  { additionalProperties: false },
);

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
      const checked = verifyStandardWebhook(ctx.secret(ctx.options.secret_env), request.headers, body, {
        toleranceSeconds: ctx.options.tolerance_seconds,
      });
      if (!checked.ok) {
        ctx.log.warn({ reason: checked.reason }, 'webhook refused');
        throw new AppError('invalid_signature', 401, `The webhook signature was refused: ${checked.reason}.`, {
          headers: { 'www-authenticate': 'Standard-Webhooks' },
        });
      }
      const id = String(request.headers['webhook-id']);
      return ctx.once(id, async () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          throw new AppError('invalid_json', 400, 'The body is not valid JSON.');
        }
        // Validated (and capped) like a products POST. Pushed content is sent whole (the PIM
        // decided it changed); each product's content hash is recorded when the feed applies
        // it, so a later file export compares against what the catalog holds.
        const feed = await ctx.catalog.submitProducts(parsed, { baseUrl: request.baseUrl });
        ctx.report.feed(feed.pk);
        ctx.report.count('products_sent', feed.total);
        ctx.log.info({ webhookId: id, feed: feed.pk, products: feed.total }, 'webhook accepted');
        return { status: 202, headers: { location: feed.url }, body: feed.json };
      });
    },
  },
});
