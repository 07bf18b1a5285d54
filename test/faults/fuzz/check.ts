// Judges one reply against the OpenAPI document: no 5xx, a documented status, a documented
// content type, and a body that matches the documented schema (Ajv over the OpenAPI schemas).
// And against what the request was: a valid request succeeds (2xx, or a status listed for its
// operation below), a request whose key or token is missing or wrong gets 401.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FuzzRequest } from './requests.ts';
import type { JsonSchema } from './generate.ts';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
// The API's timestamps (src/validation/timestamp.ts): the pattern beside the format says what it means.
for (const format of ['timestamp', 'timestamp-zone']) ajv.addFormat(format, true);
const compiled = new WeakMap<object, ValidateFunction>();

const validatorOf = (schema: JsonSchema): ValidateFunction => {
  let v = compiled.get(schema);
  if (v === undefined) {
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
};

export interface Reply {
  status: number;
  contentType: string | null;
  headers: Headers;
  text: string;
}

/**
 * The refusals a valid request may meet, per operation: the state the fuzzer's own earlier
 * requests left behind, never the request itself. Anything else than 2xx or these fails.
 */
const gone = {
  statuses: [404],
  why: "the shop's first products (the only ones destructive operations take) were deleted, or their variations replaced, by earlier requests",
};
export const ALLOWED_REFUSALS: Record<string, { statuses: number[]; why: string }> = {
  'DELETE /shops/{shop}/products/{product}/': gone,
  'POST /shops/{shop}/products/{product}/variations/': gone,
  'PUT /shops/{shop}/products/{product}/variations/': gone,
  'DELETE /shops/{shop}/products/{product}/variations/': gone,
  'POST /shops/{shop}/products/{product}/variations/{variation}/images/': gone,
  'DELETE /shops/{shop}/products/{product}/variations/{variation}/images/': gone,
  'POST /shops/{shop}/products/{product}/images/': gone,
  'PUT /shops/{shop}/products/{product}/images/': gone,
  'DELETE /shops/{shop}/products/{product}/images/': gone,
  'DELETE /shops/{shop}/marketplace/{mp}/orders/{order}/module-integrations/{id}/': {
    statuses: [404],
    why: 'past 20,000 requests (FUZZ_REQUESTS) valid deletes come round to the seeded records that earlier ones deleted',
  },
  'GET /admin/api/queues/{queue}/jobs/{id}': {
    statuses: [404],
    why: 'a dead job retried by an earlier request left its dead-letter queue',
  },
  'POST /admin/api/queues/{queue}/jobs/{id}/retry': {
    statuses: [404, 409],
    why: 'an earlier request retried it (gone from the dead-letter queue), or the job is completed',
  },
  'POST /admin/api/queues/{queue}/jobs/{id}/cancel': { statuses: [409], why: 'an earlier request cancelled it, or the job is completed' },
  'POST /admin/api/keys/{prefix}/revoke': { statuses: [409], why: 'an earlier request revoked the key' },
  'POST /admin/api/feeds/{feed}/retry': { statuses: [409], why: 'the feed is done: nothing to retry' },
};

const allowedFor = (req: FuzzRequest, status: number): boolean => ALLOWED_REFUSALS[req.op.id]?.statuses.includes(status) ?? false;

/** Problems with the reply; empty when it is as documented. */
export function judge(req: FuzzRequest, reply: Reply): string[] {
  const problems: string[] = [];
  const { status } = reply;
  if (status >= 500) problems.push(`${status} (5xx)`);
  if (req.kind === 'valid' && (status < 200 || status >= 300) && !allowedFor(req, status))
    problems.push(`valid request refused with ${status}`);
  // Missing or wrong credentials: 401 (the admin pages' CSV downloads send a browser to the login form: 303).
  // A wrong admin token: 429 too, once its address has sent 10 (the admin token throttle).
  const throttled = req.op.auth === 'admin' && req.credentials === 'wrong' && status === 429;
  if (
    req.credentials !== undefined &&
    status !== 401 &&
    !throttled &&
    !(req.op.auth === 'admin' && req.op.path.endsWith('.csv') && status === 303)
  ) {
    problems.push(`${req.credentials} credentials answered ${status}, not 401`);
  }
  if (req.kind === 'method') {
    // A method the path does not document: 405 with Allow (404 on paths that declare no Allow).
    if (status === 405 && reply.headers.get('allow') === null) problems.push('405 without Allow');
    if (status !== 405 && status !== 404) problems.push(`undocumented method ${req.method} answered ${status}`);
    if (!(reply.contentType ?? '').startsWith('application/problem+json')) problems.push(`${status} is not problem JSON`);
    return problems;
  }
  const doc = req.op.responses[String(status)] ?? req.op.responses[`${String(status)[0]}XX`];
  if (doc === undefined) {
    problems.push(`status ${status} not documented (documented: ${Object.keys(req.op.responses).join(',')})`);
    return problems;
  }
  if (status === 401 && req.op.auth === 'shop' && reply.headers.get('www-authenticate') === null)
    problems.push('401 without WWW-Authenticate');
  if (status === 429 && reply.headers.get('retry-after') === null) problems.push('429 without Retry-After');
  const media = reply.contentType?.split(';')[0]?.trim().toLowerCase() ?? null;
  if (doc.content === undefined) {
    if (reply.text.length > 0) problems.push(`${status} documents no body but sent ${reply.text.length} bytes`);
    return problems;
  }
  const entry = media === null ? undefined : doc.content[media];
  if (entry === undefined) {
    problems.push(`${status} content-type ${media} not documented (${Object.keys(doc.content).join(',')})`);
    return problems;
  }
  if (!media!.endsWith('json')) return problems;
  let body: unknown;
  try {
    body = JSON.parse(reply.text);
  } catch {
    problems.push(`${status} body is not JSON`);
    return problems;
  }
  const validate = validatorOf(entry.schema);
  if (!validate(body))
    problems.push(`${status} body does not match its schema: ${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 300)}`);
  if (media === 'application/problem+json' && (body as { status?: unknown }).status !== status)
    problems.push(`problem status ${(body as { status?: unknown }).status} != ${status}`);
  return problems;
}
