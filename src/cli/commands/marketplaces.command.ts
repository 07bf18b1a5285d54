// waybill marketplaces create|list
import type { CliContext } from '../context.ts';
import { withServices } from '../context.ts';
import { table } from '../output.ts';

export async function marketplacesCreate(ctx: CliContext, _args: unknown[], options: { name?: string; pk?: number }): Promise<number> {
  const mp = await withServices(ctx, (s) =>
    s.marketplaces.create({ name: options.name!, ...(options.pk === undefined ? {} : { pk: options.pk }) }),
  );
  ctx.out.result(mp, `Created marketplace ${mp.pk} "${mp.name}".`);
  return 0;
}

export async function marketplacesList(ctx: CliContext): Promise<number> {
  const marketplaces = await withServices(ctx, (s) => s.marketplaces.list());
  ctx.out.result({ marketplaces }, table(marketplaces, ['pk', 'name']));
  return 0;
}
