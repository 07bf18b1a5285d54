// waybill keys create|list|revoke
import type { CliContext } from '../context.ts';
import { withServices } from '../context.ts';
import { table } from '../output.ts';
import { UsageError } from '../usage.ts';

const shopPk = (value: string | undefined, required: boolean): number | undefined => {
  if (value === undefined) {
    if (required) throw new UsageError('keys create needs --shop PK');
    return undefined;
  }
  if (!/^\d+$/.test(value)) throw new UsageError(`--shop must be a shop's numeric pk (got "${value}")`);
  return Number(value);
};

export async function keysCommand(ctx: CliContext, [sub, arg]: string[], options: { shop?: string; label?: string }): Promise<number> {
  if (sub === 'create') {
    const pk = shopPk(options.shop, true)!;
    const key = await withServices(ctx, (s) => s.shops.createKey(pk, options.label ?? null));
    ctx.out.result(key, `Key for shop ${pk} (shown once, store it now):\n\n  ${key.key}\n\nUse it as: Authorization: Token ${key.key}`);
    return 0;
  }
  if (sub === 'list') {
    const keys = await withServices(ctx, (s) => s.shops.listKeys(shopPk(options.shop, false)));
    ctx.out.result({ keys }, table(keys, ['prefix', 'shop_pk', 'label', 'created_at', 'last_used_at', 'revoked_at']));
    return 0;
  }
  if (sub === 'revoke') {
    if (arg === undefined) throw new UsageError('keys revoke needs the key prefix (see keys list)');
    const key = await withServices(ctx, (s) => s.shops.revokeKey(arg));
    ctx.out.result(key, `Revoked key ${key.prefix} of shop ${key.shop_pk}.`);
    return 0;
  }
  throw new UsageError('keys needs a subcommand: create, list or revoke');
}
