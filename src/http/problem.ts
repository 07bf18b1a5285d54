// RFC 9457 problem JSON for every error reply, Fastify's own included. 5xx never carry internals.
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isTransient, MAX_LISTED_ERRORS, type FieldError } from '../errors.ts';
import { fieldErrors, type AjvLikeError } from '../validation/field-errors.ts';

export const PROBLEM_TYPE = 'application/problem+json';

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  detail: string,
  options: { errors?: FieldError[]; errorsTotal?: number; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
): FastifyReply {
  const body: Problem = {
    type: `urn:waybill:problem:${code}`,
    title: titles[status] ?? 'Error',
    status,
    detail,
    code,
    request_id: String(request.id),
    ...options.extra,
  };
  const errors = options.errors ?? [];
  if (errors.length > 0) {
    const listed = errors.length > MAX_LISTED_ERRORS ? errors.slice(0, MAX_LISTED_ERRORS) : errors;
    const total = Math.max(options.errorsTotal ?? 0, errors.length);
    body.errors = listed;
    if (total > listed.length) Object.assign(body, { errors_truncated: true, errors_total: total });
  }
  for (const [k, v] of Object.entries(options.headers ?? {})) reply.header(k, v);
  return reply.code(status).type(PROBLEM_TYPE).send(body);
}

/** What a path no route matches answers, whatever the method: 404 problem JSON. */
export const sendNotFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply =>
  sendProblem(request, reply, 404, 'not_found', `No resource at ${request.method} ${request.url.split('?')[0]}.`);

const fastifyCodes: Record<string, [number, string, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'body_too_large', 'The request body is larger than this server accepts.'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'unsupported_media_type', 'Send the body as application/json.'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'invalid_content_length', 'Content-Length does not match the body.'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'invalid_json', 'The body is empty; send JSON.'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'invalid_json', 'The body is not valid JSON.'],
  FST_ERR_BAD_URL: [400, 'bad_url', 'The URL is malformed.'],
  // A path segment longer than the router takes (100 characters): no resource has such an id.
  FST_ERR_MAX_PARAM_LENGTH: [404, 'not_found', 'No resource has an id that long.'],
  FST_ERR_ASYNC_CONSTRAINT: [400, 'bad_request', 'The request could not be routed.'],
};

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AppError) {
    if (error.status >= 500) request.log.error({ err: error.cause ?? error }, error.message);
    return sendProblem(request, reply, error.status, error.code, error.message, {
      errors: error.errors,
      errorsTotal: error.errorsTotal,
      headers: error.headers,
      extra: error.extra,
    });
  }
  if (error.validation !== undefined) {
    const where = error.validationContext ?? 'body';
    const errors = fieldErrors(error.validation as AjvLikeError[]);
    const detail =
      where === 'body'
        ? `The request body has ${errors.length} invalid field${errors.length === 1 ? '' : 's'}.`
        : `The ${where === 'querystring' ? 'query string' : where === 'params' ? 'path' : where} is invalid.`;
    return sendProblem(request, reply, 400, 'validation_failed', detail, {
      errors: where === 'body' ? errors : errors.map((e) => ({ ...e, pointer: `/${where}${e.pointer}` })),
    });
  }
  const known = error.code === undefined ? undefined : fastifyCodes[error.code];
  if (known !== undefined) return sendProblem(request, reply, known[0], known[1], known[2]);
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return sendProblem(request, reply, 400, 'invalid_json', 'The body is not valid JSON.');
  }
  // SQLSTATE class 22 (data exception): a value the database cannot hold (an id beyond bigint,
  // a date out of range). The client sent it; say so instead of a 500.
  if (typeof error.code === 'string' && /^22[0-9A-Z]{3}$/.test(error.code)) {
    request.log.info({ err: error }, 'value refused by the database');
    return sendProblem(request, reply, 400, 'invalid_value', 'A value in the request is out of range.');
  }
  if (isTransient(error)) {
    request.log.warn({ err: error }, 'database unavailable');
    return sendProblem(request, reply, 503, 'unavailable', 'The service is temporarily unavailable; retry shortly.', {
      headers: { 'retry-after': '5' },
    });
  }
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) {
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(request, reply, 500, 'internal_error', 'An internal error occurred; it has been logged with this request_id.');
  }
  return sendProblem(request, reply, status, 'bad_request', error.message);
}

/**
 * Errors Node's HTTP parser raises before any request exists (headers or URL over 16 KB: 431,
 * a time-out: 408, malformed HTTP: 400), written to the socket as problem JSON too.
 */
export function clientErrorReply(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', 'The request line and headers are larger than this server accepts (16 KB).']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'The request took too long to arrive.']
        : [400, 'bad_request', 'The request is not valid HTTP.'];
  const title = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  const body = JSON.stringify({ type: `urn:waybill:problem:${code}`, title, status, detail, code, request_id: randomUUID() });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: ${PROBLEM_TYPE}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
