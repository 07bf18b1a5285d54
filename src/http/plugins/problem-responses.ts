// The error statuses every documented route can really answer, added to its `response` schema
// (as application/problem+json) when the route does not declare them itself, so the OpenAPI
// document lists every status a client may see. Derived from what the global hooks do:
// auth (401, 404 for another shop, 429 on writes), the admin same-origin check (403), Accept (406), body parsing (400, 413, 415),
// Idempotency-Key (409 in flight, 422 reused), validation (400), load and database (503).
import type { RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { PROBLEM_TYPE } from '../problem.ts';

/** RFC 9457 problem JSON as sendProblem writes it; extra members (e.g. `items` of a 409) allowed. */
export const ProblemJson = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    request_id: Type.String(),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            pointer: Type.String({ description: 'JSON pointer of the field' }),
            code: Type.String(),
            message: Type.String(),
          },
          { additionalProperties: true },
        ),
      ),
    ),
  },
  { additionalProperties: true },
);

/** A documented problem reply, for statuses a route answers that the rules below cannot know. */
export const problemResponse = (description: string): { description: string; content: Record<string, { schema: typeof ProblemJson }> } => ({
  description,
  content: { [PROBLEM_TYPE]: { schema: ProblemJson } },
});

const descriptions: Record<number, string> = {
  303: 'No admin session: See Other, the login page (Location)',
  400: 'A field, parameter or header is missing or invalid; `errors` lists each by JSON pointer',
  401: 'No valid key or token (WWW-Authenticate names the scheme)',
  403: "The dashboard's session cookie from another origin (cross-site request forgery); scripts send the Bearer token",
  404: "Not found (another shop's resources answer 404 too)",
  406: 'The Accept header rules out JSON',
  409: 'Conflicts with the current state (or a request with the same Idempotency-Key is in flight)',
  413: 'The body is larger than WAYBILL_BODY_LIMIT',
  415: 'The body is not application/json',
  422: 'This Idempotency-Key was used with another body',
  429: 'Too many writes for this key (WAYBILL_RATE_LIMIT), or too many wrong admin tokens from this address; see Retry-After',
  500: 'Internal error (details are logged under request_id, never returned)',
  503: 'The database or the server is unavailable or overloaded; see Retry-After',
};

const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

/** The statuses a route may answer besides its own, from its method, schema and config. */
export function problemStatuses(route: Pick<RouteOptions, 'method' | 'config' | 'schema'>): number[] {
  const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
  const write = methods.some((m) => WRITES.has(m));
  const config = (route.config ?? {}) as { auth?: string; idempotent?: boolean; html?: boolean };
  const schema = (route.schema ?? {}) as { params?: unknown; querystring?: unknown; body?: unknown };
  const out = new Set<number>([500, 503]);
  if (write || schema.params !== undefined || schema.querystring !== undefined || config.idempotent === true) out.add(400);
  if (config.auth !== undefined) out.add(401);
  // An admin write with the session cookie from another origin (same-origin.ts).
  if (config.auth === 'admin' && write) out.add(403);
  // Another shop's path, an id that does not exist, or a write naming something missing.
  if (config.auth === 'shop' || schema.params !== undefined || write) out.add(404);
  if (config.html !== true) out.add(406);
  if (write) for (const s of [409, 413, 415]) out.add(s);
  if (config.idempotent === true) out.add(422);
  // A key's writes past WAYBILL_RATE_LIMIT; an address past 10 wrong admin tokens (login-throttle.ts).
  if ((config.auth === 'shop' && write) || config.auth === 'admin') out.add(429);
  // Dashboard pages and downloads send a browser without a session to the login page.
  if (config.auth === 'admin' && config.html === true) out.add(303);
  return [...out].sort((a, b) => a - b);
}

/** onRoute hook: adds the missing problem statuses to a documented route's response schema. */
export function addProblemResponses(route: RouteOptions): void {
  const schema = route.schema as ({ hide?: boolean; response?: Record<string, unknown> } & Record<string, unknown>) | undefined;
  if (schema === undefined || schema.hide === true) return;
  const response: Record<string, unknown> = { ...schema.response };
  for (const status of problemStatuses(route)) {
    if (response[status] !== undefined || response[`${String(status)[0]}xx`] !== undefined) continue;
    // A redirect has no body (a null schema keeps @fastify/swagger from inventing one).
    response[status] = status < 400 ? { type: 'null', description: descriptions[status] } : problemResponse(descriptions[status]!);
  }
  route.schema = { ...schema, response };
}
