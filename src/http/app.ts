// The HTTP server: plugins that give every route the same rules (auth, Allow/405, Accept,
// problem JSON, idempotency, load shedding), then each area's routes.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { acceptPlugin } from './plugins/accept.ts';
import { authPlugin } from './plugins/auth.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { methodsPlugin } from './plugins/methods.ts';
import { addProblemResponses } from './plugins/problem-responses.ts';
import { clientErrorReply, errorHandler, sendProblem } from './problem.ts';
import { AppError } from '../errors.ts';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../platform/json-depth.ts';
import './route-config.ts';
import { orderRoutes } from '../orders/orders.routes.ts';
import { catalogRoutes } from '../catalog/catalog.routes.ts';
import { variationRoutes } from '../catalog/variations.routes.ts';
import { feedRoutes } from '../feeds/feeds.routes.ts';
import { systemRoutes } from './system.routes.ts';
import { connectorReceiverRoutes, receiverRoutes } from '../connectors/host/connectors.routes.ts';
import { metricsRoutes } from '../metrics/metrics.routes.ts';
import { carrierReceiverRoutes } from '../tracking/carrier-webhooks.routes.ts';
import { adminApiRoutes } from '../admin/admin-api.routes.ts';
import { adminPageRoutes } from '../admin/admin-pages.routes.ts';
import { validatorCompiler } from './validation.ts';

export interface AppDeps {
  config: Config;
  services: Services;
  logger: Logger;
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export async function buildApp({ config, services, logger }: AppDeps): Promise<App> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: config.bodyLimit,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { allErrors: true } },
    // While closing, requests still arriving on open connections get 503 problem JSON (the
    // onRequest hook below) rather than Fastify's plain body.
    return503OnClosing: false,
    // Errors the router raises before any route (a malformed %-escape, a path segment over
    // 100 characters) answer problem JSON like every other error.
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
    clientErrorHandler: clientErrorReply,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The API takes JSON only: a text/plain body answers 415 instead of reaching validation.
  app.removeContentTypeParser('text/plain');
  // JSON nested deeper than MAX_JSON_DEPTH levels is refused (400) before it is parsed: what
  // follows parsing (cloning, hashing, validation, jsonb) would overflow the stack on it.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonTooDeep(body as string)) {
      return done(new AppError('too_deep', 400, `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    }
    return parseJson(request, body as string, done);
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    return sendProblem(request, reply, 503, 'shutting_down', 'The server is shutting down; retry on another instance or shortly.', { headers: { 'retry-after': '5' } });
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, 404, 'not_found', `No resource at ${request.method} ${request.url.split('?')[0]}.`),
  );
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });

  await app.register(underPressure, {
    // 2 s: a busy start-up (module loading, migrations) must not shed the first requests.
    maxEventLoopDelay: 2_000,
    retryAfter: 10,
    pressureHandler: (request, reply, type, value) => {
      reply.header('retry-after', '10');
      void sendProblem(request, reply, 503, 'overloaded', `The server is overloaded (${type}: ${value}); retry shortly.`);
    },
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'waybill',
        version: '1',
        description: 'Marketplace catalog and order-shipping API. Authenticate with `Authorization: Token <key>`.',
      },
      components: { securitySchemes: {
        token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <key>' },
        adminBearer: { type: 'http', scheme: 'bearer', description: 'WAYBILL_ADMIN_TOKEN (admin API)' },
      } },
      security: [{ token: [] }],
    },
  });
  app.addHook('onRoute', (route) => {
    // The Swagger UI serves HTML and assets.
    if (route.url.startsWith('/docs')) route.config = { ...route.config, html: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  // Every documented route lists the error statuses it can answer (problem JSON), for an honest OpenAPI.
  app.addHook('onRoute', addProblemResponses);

  await app.register(acceptPlugin);
  await app.register(authPlugin, { shops: services.shops, adminToken: config.adminToken, rateLimitPerMinute: config.rateLimitPerMinute });
  await app.register(methodsPlugin);
  await app.register(idempotencyPlugin, { idempotency: services.idempotency });

  await app.register(systemRoutes, { services });
  await app.register(receiverRoutes, { services, publicUrl: config.publicUrl, routes: connectorReceiverRoutes });
  await app.register(receiverRoutes, { services, publicUrl: config.publicUrl, routes: carrierReceiverRoutes });
  await app.register(metricsRoutes);
  await app.register(adminApiRoutes, { services });
  await app.register(adminPageRoutes, { services, adminToken: config.adminToken, publicUrl: config.publicUrl });
  await app.register(orderRoutes, { services, publicUrl: config.publicUrl });
  await app.register(catalogRoutes, { services, publicUrl: config.publicUrl });
  await app.register(variationRoutes, { services, publicUrl: config.publicUrl });
  await app.register(feedRoutes, { services, publicUrl: config.publicUrl });
  return app;
}
