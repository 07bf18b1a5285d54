// Load shedding as a client sees it: the under-pressure plugin's 503, problem code
// "overloaded" with Retry-After (src/http/app.ts). Tests retry only that 503: any other 503
// (database away, a route's own refusal) is a result to check, never to wait out.
interface AnyReply {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

export const isShedding = (res: AnyReply): boolean => {
  if (res.statusCode !== 503 || res.headers['retry-after'] === undefined) return false;
  if (!String(res.headers['content-type'] ?? '').startsWith('application/problem+json')) return false;
  try {
    return (JSON.parse(res.body) as { code?: unknown }).code === 'overloaded';
  } catch {
    return false;
  }
};

/**
 * Waits until the API is not shedding load: on a busy machine start-up can stall the event loop
 * past the overload threshold, and the first requests then answer 503 "overloaded" for a moment.
 * Any other answer of /healthz ends the wait (a 503 of a database away is the test's to see).
 */
export async function responsive(app: { inject(url: string): Promise<AnyReply> }): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (isShedding(await app.inject('/healthz')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}
