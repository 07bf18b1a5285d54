// Typed errors. Routes, jobs and connectors throw these; one HTTP handler maps them to
// RFC 9457 problem JSON, and job handlers retry only the transient ones.

/** One invalid field, by JSON pointer into the request body (`/0/price`). */
export interface FieldError {
  pointer: string;
  code: string;
  message: string;
}

/**
 * A problem lists at most this many field errors (the first ones); past it, `errors_truncated`
 * is true and `errors_total` counts them all, so one request cannot produce a reply of
 * megabytes.
 */
export const MAX_LISTED_ERRORS = 1_000;

export interface AppErrorOptions {
  cause?: unknown;
  errors?: FieldError[];
  /** How many field errors there were when `errors` holds only the first of them. */
  errorsTotal?: number;
  headers?: Record<string, string>;
  /** Extra members of the problem body (e.g. `items` of a 409). */
  extra?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly errors: FieldError[];
  readonly errorsTotal: number;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;

  constructor(code: string, status: number, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = status;
    this.errors = options.errors ?? [];
    this.errorsTotal = Math.max(options.errorsTotal ?? 0, this.errors.length);
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }

  /** Transient errors (database away, a 5xx from a partner) are worth retrying. */
  get transient(): boolean {
    return this.status === 503 || this.status === 429 || this.status === 502 || this.status === 504;
  }
}

export const notFound = (what: string): AppError => new AppError('not_found', 404, `${what} was not found.`);

export const badRequest = (message: string, errors: FieldError[] = [], errorsTotal?: number): AppError =>
  new AppError('validation_failed', 400, message, { errors, errorsTotal });

export const conflict = (message: string, extra: Record<string, unknown> = {}): AppError =>
  new AppError('conflict', 409, message, { extra });

/** The database (or another dependency) is unreachable right now; the client may retry. */
export const unavailable = (message: string, cause?: unknown): AppError =>
  new AppError('unavailable', 503, message, { cause, headers: { 'retry-after': '5' } });

// SQLSTATE classes that mean "the database is away or restarting", not "the query is wrong";
// 57014: a statement cancelled by statement_timeout (the database did not answer in time).
const transientSqlStates = /^(08|53|57P0[1-3]|57014|40001|40P01|55P03)/;
const transientNodeCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

// SQLSTATE classes of a value or row the database refuses: 22 data exception (a number out of
// range), 23 integrity constraint violation, 54 program limit exceeded (an index row too large).
const itemDataSqlStates = /^(22|23|54)[0-9A-Z]{3}$/;

/** True for a database error caused by the data of the statement (another item could succeed), not by the database or the query. */
export function isItemDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && itemDataSqlStates.test(code);
}

/** True for errors of an unreachable or restarting database, a dropped connection, or a time-out. */
export function isTransient(error: unknown): boolean {
  if (error instanceof AppError) return error.transient;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (transientSqlStates.test(code) || transientNodeCodes.has(code))) return true;
  const msg = error.message;
  if (
    /Connection terminated|connection timeout|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
      msg,
    )
  ) {
    return true;
  }
  return error.cause !== undefined && error.cause !== error && isTransient(error.cause);
}
