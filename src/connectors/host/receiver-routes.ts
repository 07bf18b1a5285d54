// Where connectors' receivers answer: one table, read by the HTTP plugin that mounts them and
// by the summaries that show a connector's push addresses. A receiver name not listed here is
// not reachable over HTTP.
export interface ReceiverRoute {
  /** Fastify path with a `:name` parameter (the connector instance). */
  url: string;
  /** The receiver of the connector's definition that answers it. */
  receiver: string;
  summary: string;
  tags?: string[];
}

export const RECEIVER_ROUTES: readonly ReceiverRoute[] = [
  {
    url: '/connectors/:name/webhook',
    receiver: 'webhook',
    summary: 'Push to a connector (catalog-webhook: products, signed per Standard Webhooks; 202 + feed Location)',
  },
  {
    url: '/webhooks/carriers/:name/',
    receiver: 'carrier-webhook',
    summary:
      'Carrier tracking webhook (tracking-aftership: aftership-hmac-sha256; tracking-easypost: X-Hmac-Signature; 401 when wrong; a repeated event is applied once)',
    tags: ['tracking'],
  },
];

/** The paths a connector's receivers answer on (POST). */
export const receiverPaths = (name: string, receivers: string[]): string[] =>
  RECEIVER_ROUTES.filter((r) => receivers.includes(r.receiver)).map((r) => r.url.replace(':name', name));
