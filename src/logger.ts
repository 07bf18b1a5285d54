// pino JSON to stdout (pretty when stdout is a terminal), and to more destinations such as the
// database's log_lines (src/logs/log-sink.ts). Secrets never reach a log line.
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
  const params = url.slice(q + 1).split('&').map((part) => {
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

export interface LoggerOptions {
  level: string;
  /** Default: when stdout is a terminal. */
  pretty?: boolean;
  /** More destinations for the same lines (the database's log sink, a test capture). */
  streams?: StreamEntry[];
  base?: Record<string, unknown>;
  /** File descriptor of the main destination: 1 (stdout, default) or 2 (the CLI keeps stdout for results). */
  fd?: 1 | 2;
  /** false: only the extra streams get lines (tests). Default true. */
  console?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const fd = options.fd ?? 1;
  const usePretty = options.pretty ?? Boolean(fd === 1 ? process.stdout.isTTY : process.stderr.isTTY);
  const out = usePretty
    ? pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: fd })
    : pino.destination({ dest: fd, sync: fd === 2 });
  const streams: StreamEntry[] = [...(options.console === false ? [] : [{ level: 'trace' as const, stream: out }]), ...(options.streams ?? [])];
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
