// waybill's version, as package.json says (the webhooks' User-Agent carries it).
import { readFileSync } from 'node:fs';

export const WAYBILL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
