// Every request waybill sends to the outside (carrier APIs, shops' webhook URLs) goes through
// here, so three rules hold for all of them:
// - an answer's body is read as a stream up to a byte cap; past it the connection is closed,
//   the rest is never read, and the call fails (a carrier answering 500 MB cannot fill memory);
// - a redirect is followed only to the same origin (scheme, host and port), a few times at
//   most; one to another origin fails the call, so credentials never reach another host;
// - with a destination guard (webhooks), every address a host name resolves to is checked
//   before the socket connects, and the socket connects to that checked address.
// Plain node:http(s): its `lookup` hook is what lets the guard see the address connected to.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/** Default body cap: 4 MiB (a carrier's JSON about one parcel is a few KB). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
/** Same-origin redirects are followed at most this many times, whatever a caller asks. */
export const MAX_REDIRECTS = 5;

export type OutboundFailure = 'too_large' | 'redirect_refused' | 'too_many_redirects' | 'destination_refused';

/** A call refused by the rules above (not a network error): retrying gets the same answer. */
export class OutboundError extends Error {
  readonly reason: OutboundFailure;

  constructor(reason: OutboundFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'OutboundError';
    this.reason = reason;
  }
}

/** Where a request may go: a check of the URL itself, and of each address its host resolves to. */
export interface DestinationGuard {
  /** Throws OutboundError('destination_refused') for a URL that may not be called at all. */
  checkUrl(url: URL): void;
  /** A dns.lookup that fails with OutboundError('destination_refused') for a refused address. */
  lookup: LookupFunction;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the call (time-out, shutdown), body included: the promise rejects with the signal's reason. */
  signal: AbortSignal;
  /** Largest body read, bytes (default DEFAULT_MAX_RESPONSE_BYTES); 0: the body is discarded unread. */
  maxBytes?: number;
  /**
   * Past maxBytes: 'fail' (default) rejects with OutboundError('too_large'); 'truncate' stops
   * reading there and answers the first maxBytes bytes (`truncated: true`), for callers that
   * only look at the start of an answer (a webhook receiver's reply).
   */
  overflow?: 'fail' | 'truncate';
  /** Same-origin redirects followed, GET only (default 0: a 3xx is returned as it is). */
  maxRedirects?: number;
  guard?: DestinationGuard;
}

export interface OutboundResponse {
  status: number;
  /** A response header, null when absent (several values joined by ", "). */
  header(name: string): string | null;
  body: Buffer;
  /** True when the body was cut at maxBytes (overflow 'truncate'). */
  truncated: boolean;
  /** The URL that answered (after same-origin redirects). */
  url: string;
}

const mib = (bytes: number): string => (bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(1)} MiB` : `${bytes} bytes`);

/** Sends one request under the rules above. Network errors reject as node:http gives them. */
export async function outboundRequest(target: string, req: OutboundRequest): Promise<OutboundResponse> {
  let url = new URL(target);
  const follow = Math.min(Math.max(req.maxRedirects ?? 0, 0), MAX_REDIRECTS);
  for (let hops = 0; ; hops++) {
    const res = await send(url, req);
    const location = res.statusCode! >= 300 && res.statusCode! < 400 ? res.headers.location : undefined;
    if (location === undefined || follow === 0 || (req.method ?? 'GET') !== 'GET') return answer(url, res, req);
    res.destroy();
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (error) {
      throw new OutboundError('redirect_refused', `${url.origin} redirected to an invalid Location (${location.slice(0, 200)})`, {
        cause: error,
      });
    }
    if (next.origin !== url.origin) {
      throw new OutboundError(
        'redirect_refused',
        `${url.origin} redirected to another origin (${next.origin}); not followed, so the request's credentials are not sent there`,
      );
    }
    if (hops >= follow) throw new OutboundError('too_many_redirects', `${url.origin} redirected more than ${follow} times`);
    url = next;
  }
}

// One agent pair per guard: a socket its lookup checked is never reused by an unguarded
// request, nor an unguarded socket by a guarded one.
const guardedAgents = new WeakMap<DestinationGuard, { http: http.Agent; https: https.Agent }>();

function agentFor(guard: DestinationGuard | undefined, protocol: string): http.Agent | undefined {
  if (guard === undefined) return undefined;
  let agents = guardedAgents.get(guard);
  if (agents === undefined) {
    agents = {
      http: new http.Agent({ keepAlive: true, lookup: guard.lookup }),
      https: new https.Agent({ keepAlive: true, lookup: guard.lookup }),
    };
    guardedAgents.set(guard, agents);
  }
  return protocol === 'https:' ? agents.https : agents.http;
}

function send(url: URL, req: OutboundRequest): Promise<http.IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return Promise.reject(new OutboundError('destination_refused', `${url.protocol} URLs are not called (http and https only)`));
  try {
    req.guard?.checkUrl(url);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    // A known length rather than chunked encoding: some receivers refuse chunked POSTs.
    const headers = req.body === undefined ? req.headers : { 'content-length': String(Buffer.byteLength(req.body)), ...req.headers };
    const r = client.request(
      url,
      { method: req.method ?? 'GET', headers, signal: req.signal, agent: agentFor(req.guard, url.protocol) },
      resolve,
    );
    r.on('error', (error) => reject(req.signal.aborted && !(error instanceof OutboundError) ? (req.signal.reason as Error) : error));
    r.end(req.body);
  });
}

async function answer(url: URL, res: http.IncomingMessage, req: OutboundRequest): Promise<OutboundResponse> {
  const max = req.maxBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const header = (name: string): string | null => {
    const v = res.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  };
  const done = (body: Buffer, truncated = false): OutboundResponse => ({ status: res.statusCode!, header, body, truncated, url: url.href });
  if (max === 0) {
    res.destroy();
    return done(Buffer.alloc(0));
  }
  const truncate = req.overflow === 'truncate';
  const tooLarge = (detail: string): OutboundError =>
    new OutboundError('too_large', `the answer of ${url.origin} is larger than ${mib(max)} (${detail}); the rest was not read`);
  const declared = Number(res.headers['content-length']);
  if (!truncate && Number.isFinite(declared) && declared > max) {
    res.destroy();
    throw tooLarge(`Content-Length ${declared}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    // Leaving the loop (the cap, an abort) destroys the response and its socket.
    for await (const chunk of res as AsyncIterable<Buffer>) {
      if (truncate && total + chunk.length > max) {
        chunks.push(chunk.subarray(0, max - total));
        res.destroy();
        return done(Buffer.concat(chunks, max), true);
      }
      total += chunk.length;
      if (total > max) throw tooLarge(`more than ${max} bytes sent`);
      chunks.push(chunk);
    }
  } catch (error) {
    res.destroy();
    throw req.signal.aborted && !(error instanceof OutboundError) ? (req.signal.reason as Error) : error;
  }
  return done(Buffer.concat(chunks, total));
}
