// HTTP receivers of push connectors: the raw body and headers go to the connector's receiver
// (which never sees Fastify), its { status, headers, body } comes back as the reply.
// The paths are receiver-routes.ts's table.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { baseUrl } from '../../system/base-url.ts';
import { allowOnly } from '../../http/plugins/methods.ts';
import { problemResponse } from '../../http/plugins/problem-responses.ts';
import { jsonText } from '../../http/json-text.ts';
import type { ConnectorService } from './connectors.service.ts';
import { RECEIVER_ROUTES } from './receiver-routes.ts';

export interface ReceiverRoutesOptions {
  services: { connectors: ConnectorService };
  publicUrl: string | undefined;
}

const ALLOW = 'POST, OPTIONS';

export const receiverRoutes: FastifyPluginAsyncTypebox<ReceiverRoutesOptions> = async (app, { services, publicUrl }) => {
  // Signatures are computed over the exact bytes sent: keep every body as a Buffer (this
  // plugin's scope only; the rest of the API parses JSON as usual).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  for (const route of RECEIVER_ROUTES) {
    allowOnly(app, route.url, ALLOW);
    app.post(
      route.url,
      {
        config: { allow: ALLOW },
        schema: {
          tags: route.tags ?? ['connectors'],
          summary: route.summary,
          security: [],
          params: Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }) }),
          response: {
            202: Type.Unknown({ description: 'Accepted: the work it causes (a feed: its Location and JSON)' }),
            200: Type.Unknown({ description: 'Handled' }),
            401: problemResponse('The signature is missing, wrong, or its timestamp is outside the tolerance'),
            422: problemResponse('The connector refused the input'),
          },
        },
      },
      async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Receivers parse JSON themselves; a body that is not UTF-8 or nests past the API's
        // limit never reaches them.
        jsonText(body);
        const res = await services.connectors.receive(request.params.name, route.receiver, {
          headers: request.headers,
          rawBody: body,
          params: request.params,
          baseUrl: baseUrl(request, publicUrl),
        });
        for (const [k, v] of Object.entries(res.headers ?? {})) reply.header(k, v);
        // Any status the receiver chose (its schema documents the usual ones).
        reply.code(res.status as 202);
        return res.body === undefined ? reply.send() : reply.send(res.body);
      },
    );
  }
};
