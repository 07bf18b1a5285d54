// waybill shops create|list|update|rotate-secret
import type { CliContext } from '../context.ts';
import { withServices } from '../context.ts';
import { cliEnvironment } from '../hint.ts';
import { table } from '../output.ts';

export async function shopsCreate(ctx: CliContext, _args: unknown[], options: { name?: string; webhookUrl?: string }): Promise<number> {
  const shop = await withServices(ctx, (s) => s.shops.create({ name: options.name!, webhook_url: options.webhookUrl ?? null }));
  ctx.out.result(
    shop,
    `Created shop ${shop.pk} "${shop.name}". Its webhook secret (shown once, store it now):\n\n  ${shop.webhook_secret}\n\n` +
      `Next: ${cliEnvironment(ctx.config)} npx waybill keys create --shop ${shop.pk}`,
  );
  return 0;
}

export async function shopsList(ctx: CliContext): Promise<number> {
  const shops = await withServices(ctx, (s) => s.shops.list());
  ctx.out.result({ shops }, table(shops, ['pk', 'name', 'webhook_url', 'tier', 'created_at']));
  return 0;
}

export async function shopsUpdate(
  ctx: CliContext,
  [pk]: unknown[],
  options: { name?: string; webhookUrl?: string; tier?: string },
): Promise<number> {
  const shop = await withServices(ctx, (s) =>
    s.shops.update(pk as number, {
      ...(options.name === undefined ? {} : { name: options.name }),
      ...(options.webhookUrl === undefined ? {} : { webhook_url: options.webhookUrl }),
      ...(options.tier === undefined ? {} : { tier: options.tier }),
    }),
  );
  ctx.out.result(shop, `Shop ${shop.pk} "${shop.name}": tier ${shop.tier}, webhook URL ${shop.webhook_url ?? 'none'}.`);
  return 0;
}

export async function shopsRotateSecret(ctx: CliContext, [pk]: unknown[]): Promise<number> {
  const rotated = await withServices(ctx, (s) => s.shops.rotateSecret(pk as number));
  ctx.out.result(
    rotated,
    `New webhook secret of shop ${rotated.pk} (shown once, store it now):\n\n  ${rotated.webhook_secret}\n\n` +
      `X-Madkting-Signature uses it from now on; webhook-signature also carries a signature with the old one until ${rotated.previous_secret_valid_until}.`,
  );
  return 0;
}
