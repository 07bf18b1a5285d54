// pino to stdout: JSON lines, or one readable line per entry on a terminal (LOG_FORMAT), and
// the same lines to more destinations such as the database's log_lines (src/logs/log-sink.ts).
// Secrets never reach a log line.
import { hostname } from 'node:os';
import pino, { type Logger, type StreamEntry } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** Paths whose values are replaced by "[redacted]" in every line. */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["webhook-signature"]',
  'req.headers["aftership-hmac-sha256"]',
  'headers.authorization',
  'authorization',
  'token',
  'key',
  'secret',
  'password',
  '*.token',
  '*.key',
  '*.secret',
  '*.password',
  '*.apiKey',
  'config.adminToken',
];

/** Query parameters whose values never reach a log line: a key sent as `?token=` instead of in its header. */
const SECRET_PARAMS = /^(token|key|api_key|apikey|access_token|auth|authorization|secret|password|signature)$/i;

/** A request URL with the values of secret-looking query parameters replaced by "[redacted]". */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const raw = eq < 0 ? part : part.slice(0, eq);
      let name = raw;
      try {
        name = decodeURIComponent(raw.replaceAll('+', ' '));
      } catch {
        // a malformed escape: judged by its raw text
      }
      return SECRET_PARAMS.test(name.trim()) ? `${raw}=[redacted]` : part;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with the URL's secrets redacted (Fastify's own gives way to it). */
const req = (r: LoggedRequest) => ({
  method: r.method,
  url: typeof r.url === 'string' ? redactUrl(r.url) : r.url,
  version: r.headers?.['accept-version'],
  host: r.host,
  remoteAddress: r.ip,
  remotePort: r.socket?.remotePort,
});

/** json: one JSON object per line; pretty: one readable line per entry; auto: pretty on a terminal. */
export type LogFormat = 'auto' | 'pretty' | 'json';

export interface LoggerOptions {
  level: string;
  /** Default: when the destination is a terminal (format auto). */
  pretty?: boolean;
  /** LOG_FORMAT; `pretty` (above), when given, wins. Default auto. */
  format?: LogFormat;
  /** More destinations for the same lines (the database's log sink, a test capture). */
  streams?: StreamEntry[];
  base?: Record<string, unknown>;
  /** File descriptor of the main destination: 1 (stdout, default) or 2 (the CLI keeps stdout for results). */
  fd?: 1 | 2;
  /** false: only the extra streams get lines (tests). Default true. */
  console?: boolean;
}

/** Fields a readable line leaves out: the same on every line, or shown another way. */
const QUIET_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'err', 'banner']);

/** A field's value in a readable line: compact, a long list as its length, at most 120 characters. */
const shortValue = (v: unknown): string => {
  const text = typeof v === 'string' ? v : Array.isArray(v) && v.length > 6 ? `[${v.length} items]` : (JSON.stringify(v) ?? String(v));
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
};

/**
 * One entry as a readable line: its message, then `key=value` of its fields; an error's
 * message inline and, at error and above, its stack below. A line with `banner: true` (the
 * daemon's ready line) is its message alone: the message says it all.
 */
export function readableLine(log: Record<string, unknown>): string {
  const msg = String(log.msg ?? '');
  if (log.banner === true) return msg;
  const fields = Object.entries(log)
    .filter(([k, v]) => !QUIET_FIELDS.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${shortValue(v)}`);
  const err = log.err as { message?: string; stack?: string } | undefined;
  const line = [msg, ...(err?.message === undefined ? [] : [`err=${shortValue(err.message)}`]), ...fields].join('  ');
  const severe = log.level === 'error' || log.level === 'fatal' || Number(log.level) >= 50;
  return severe && typeof err?.stack === 'string' ? `${line}\n    ${err.stack.split('\n').slice(1).join('\n    ')}` : line;
}

export function createLogger(options: LoggerOptions): Logger {
  const fd = options.fd ?? 1;
  const format = options.format ?? 'auto';
  const usePretty =
    options.pretty ?? (format === 'auto' ? Boolean(fd === 1 ? process.stdout.isTTY : process.stderr.isTTY) : format === 'pretty');
  const out = usePretty
    ? pretty({
        colorize: Boolean(fd === 1 ? process.stdout.isTTY : process.stderr.isTTY),
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname',
        destination: fd,
        hideObject: true,
        messageFormat: (log) => readableLine(log),
      })
    : pino.destination({ dest: fd, sync: fd === 2 });
  const streams: StreamEntry[] = [
    ...(options.console === false ? [] : [{ level: 'trace' as const, stream: out }]),
    ...(options.streams ?? []),
  ];
  return pino(
    {
      level: options.level,
      // pid and hostname tell the processes apart on the Logs page (every process writes there).
      base: options.base ?? { service: 'waybill', pid: process.pid, hostname: hostname() },
      redact: { paths: redactPaths, censor: '[redacted]' },
      serializers: { req },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.multistream(streams),
  );
}
