// Request numbers bounded by a column narrower than the shared rule (src/validation/ajv.ts:
// finite numbers, safe integers): an int4 column takes at most 2,147,483,647.
import { Type } from 'typebox';

export const INT4_MAX = 2_147_483_647;

/** An integer kept in an int4 column (stock, quantity, days): 0 (or `minimum`) to INT4_MAX. */
export const Int4 = (options: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer({ minimum: 0, maximum: INT4_MAX, ...options });
