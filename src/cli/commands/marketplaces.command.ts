// waybill marketplaces create|list
import type { CliContext } from '../context.ts';
import { withServices } from '../context.ts';
import { table } from '../output.ts';
import { UsageError } from '../usage.ts';

export async function marketplacesCommand(ctx: CliContext, [sub]: string[], options: { name?: string; pk?: string }): Promise<number> {
  if (sub === 'create') {
    if (options.name === undefined || options.name.trim() === '') throw new UsageError('marketplaces create needs --name NAME');
    if (options.pk !== undefined && !/^[1-9]\d*$/.test(options.pk)) throw new UsageError(`--pk must be a positive integer (got "${options.pk}")`);
    const pk = options.pk === undefined ? undefined : Number(options.pk);
    const mp = await withServices(ctx, (s) => s.marketplaces.create({ name: options.name!.trim(), ...(pk === undefined ? {} : { pk }) }));
    ctx.out.result(mp, `Created marketplace ${mp.pk} "${mp.name}".`);
    return 0;
  }
  if (sub === 'list') {
    const marketplaces = await withServices(ctx, (s) => s.marketplaces.list());
    ctx.out.result({ marketplaces }, table(marketplaces, ['pk', 'name']));
    return 0;
  }
  throw new UsageError('marketplaces needs a subcommand: create or list');
}
