// waybill keys create|list|revoke
import type { CliContext } from '../context.ts';
import { withServices } from '../context.ts';
import { table } from '../output.ts';

export async function keysCreate(ctx: CliContext, _args: unknown[], options: { shop?: number; label?: string }): Promise<number> {
  const pk = options.shop!;
  const key = await withServices(ctx, (s) => s.shops.createKey(pk, options.label ?? null));
  ctx.out.result(key, `Key for shop ${pk} (shown once, store it now):\n\n  ${key.key}\n\nUse it as: Authorization: Token ${key.key}`);
  return 0;
}

export async function keysList(ctx: CliContext, _args: unknown[], options: { shop?: number }): Promise<number> {
  const keys = await withServices(ctx, (s) => s.shops.listKeys(options.shop));
  ctx.out.result({ keys }, table(keys, ['prefix', 'shop_pk', 'label', 'created_at', 'last_used_at', 'revoked_at']));
  return 0;
}

export async function keysRevoke(ctx: CliContext, [prefix]: unknown[]): Promise<number> {
  const key = await withServices(ctx, (s) => s.shops.revokeKey(prefix as string));
  ctx.out.result(key, `Revoked key ${key.prefix} of shop ${key.shop_pk}.`);
  return 0;
}
