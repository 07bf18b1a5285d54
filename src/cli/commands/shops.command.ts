// waybill shops create|list|rotate-secret
import type { CliContext } from '../context.ts';
import { withServices } from '../context.ts';
import { table } from '../output.ts';
import { UsageError } from '../usage.ts';

export async function shopsCommand(ctx: CliContext, [sub, arg]: string[], options: { name?: string; 'webhook-url'?: string }): Promise<number> {
  if (sub === 'create') {
    if (options.name === undefined || options.name.trim() === '') throw new UsageError('shops create needs --name NAME');
    const url = options['webhook-url'];
    if (url !== undefined && !/^https?:\/\//.test(url)) throw new UsageError('--webhook-url must start with http:// or https://');
    const shop = await withServices(ctx, (s) => s.shops.create({ name: options.name!.trim(), webhook_url: url ?? null }));
    ctx.out.result(shop, `Created shop ${shop.pk} "${shop.name}". Its webhook secret (shown once, store it now):\n\n  ${shop.webhook_secret}\n\nNext: npx waybill keys create --shop ${shop.pk}`);
    return 0;
  }
  if (sub === 'list') {
    const shops = await withServices(ctx, (s) => s.shops.list());
    ctx.out.result({ shops }, table(shops, ['pk', 'name', 'webhook_url', 'created_at']));
    return 0;
  }
  if (sub === 'rotate-secret') {
    if (arg === undefined || !/^\d+$/.test(arg)) throw new UsageError('shops rotate-secret needs the shop\'s numeric pk');
    const rotated = await withServices(ctx, (s) => s.shops.rotateSecret(Number(arg)));
    ctx.out.result(rotated, `New webhook secret of shop ${rotated.pk} (shown once, store it now):\n\n  ${rotated.webhook_secret}\n\n`
      + `X-Madkting-Signature uses it from now on; webhook-signature also carries a signature with the old one until ${rotated.previous_secret_valid_until}.`);
    return 0;
  }
  throw new UsageError('shops needs a subcommand: create, list or rotate-secret');
}
