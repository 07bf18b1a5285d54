// Carrier push updates (AfterShip webhooks) at POST /webhooks/carriers/{name}/, mounted by the
// connector framework's receiver plugin like POST /connectors/{name}/webhook: the raw body and
// headers go to the connector's `carrier-webhook` receiver, which verifies and applies them.
import type { ReceiverRoute } from '../connectors/host/connectors.routes.ts';

export const carrierReceiverRoutes: ReceiverRoute[] = [
  {
    url: '/webhooks/carriers/:name/',
    receiver: 'carrier-webhook',
    summary: 'Carrier tracking webhook (tracking-aftership: signed by aftership-hmac-sha256; 401 when wrong; a repeated event_id is applied once)',
    tags: ['tracking'],
  },
];
