// A receiver of waybill's webhooks: checks both signatures, answers 204 at once, then works.
// Run: npm i standardwebhooks && WEBHOOK_SECRET=whsec_... PORT=3000 node webhook-receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET; // the shop's secret, as `waybill shops create` printed it
const standard = new Webhook(secret);

/** X-Madkting-Signature: hex HMAC-SHA256 of the raw body, keyed by the secret as printed. */
function madktingSignatureOk(body, header) {
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(String(header ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks); // the exact bytes: never re-serialize before checking
    let event;
    try {
      // webhook-id, webhook-timestamp (at most 5 minutes off), webhook-signature
      event = standard.verify(body, req.headers);
    } catch {
      res.writeHead(401).end('error: bad webhook-signature');
      return;
    }
    if (!madktingSignatureOk(body, req.headers['x-madkting-signature'])) {
      res.writeHead(401).end('error: bad X-Madkting-Signature');
      return;
    }
    res.writeHead(204).end();
    // Deliveries can repeat (retries): skip a webhook-id already handled. Then fetch the
    // resource from Location with the shop's API key.
    console.log(JSON.stringify({ id: req.headers['webhook-id'], event: event.event, type: event.type, location: req.headers.location, pk: event.pk }));
  });
});
server.listen(Number(process.env.PORT ?? 3000), () => console.log(`listening on ${server.address().port}`));
