// The HTTP server: plugins that give every route the same rules (auth, Allow/405, Accept,
// problem JSON, idempotency, load shedding), then each area's routes.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import underPressure from '@fastify/under-pressure';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { AdminService } from '../admin/admin.service.ts';
import type { CatalogService } from '../catalog/catalog.service.ts';
import type { ConnectorService } from '../connectors/host/connectors.service.ts';
import type { FeedService } from '../feeds/feeds.service.ts';
import type { FeedRecoveryService } from '../feeds/feed-recovery.service.ts';
import type { FeedSubmitService } from '../feeds/feed-submit.service.ts';
import type { MarketplaceService } from '../marketplaces/marketplaces.service.ts';
import type { LabelService } from '../orders/label.service.ts';
import type { ModuleIntegrationService } from '../orders/module-integrations.service.ts';
import type { OrderService } from '../orders/orders.service.ts';
import type { AdminSessionService } from '../admin-sessions/admin-sessions.service.ts';
import type { HealthService } from '../system/health.service.ts';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';
import type { ShopService } from '../shops/shops.service.ts';
import type { WebhookService } from '../webhooks/webhooks.service.ts';
import { acceptPlugin } from './plugins/accept.ts';
import { authPlugin } from './plugins/auth.ts';
import { idempotencyPlugin } from './plugins/idempotency.ts';
import { methodsPlugin, routeEveryMethod } from './plugins/methods.ts';
import { sameOriginPlugin } from './plugins/same-origin.ts';
import { addProblemResponses } from './plugins/problem-responses.ts';
import { clientErrorReply, errorHandler, sendNotFound, sendProblem } from './problem.ts';
import type { AppError } from '../errors.ts';
import { jsonText } from './json-text.ts';
import { mayHoldInexact, parseJsonExact } from '../validation/exact-numbers.ts';
import { timestampFormats } from '../validation/timestamp.ts';
import './route-config.ts';
import { orderRoutes } from '../orders/orders.routes.ts';
import { catalogRoutes } from '../catalog/catalog.routes.ts';
import { variationRoutes } from '../catalog/variations.routes.ts';
import { imageRoutes } from '../catalog/images.routes.ts';
import { fieldRoutes } from '../catalog/fields.routes.ts';
import { feedRoutes } from '../feeds/feeds.routes.ts';
import { shopRoutes } from '../shops/shops.routes.ts';
import { systemRoutes } from '../system/system.routes.ts';
import { receiverRoutes } from '../connectors/host/connectors.routes.ts';
import { metricsRoutes } from '../metrics/metrics.routes.ts';
import { adminApiRoutes } from '../admin/admin-api.routes.ts';
import { adminPageRoutes } from '../admin/admin-pages.routes.ts';
import { AdminLoginThrottle } from '../admin/login-throttle.ts';
import { cookieSecret } from '../admin/admin-session.ts';
import { validatorCompiler } from './validation.ts';
import { RequestLines } from './request-lines.ts';

/** The services the HTTP layer uses; each route plugin gets its own few. */
export interface AppServices {
  shops: ShopService;
  marketplaces: MarketplaceService;
  idempotency: IdempotencyService;
  health: HealthService;
  webhooks: WebhookService;
  orders: OrderService;
  moduleIntegrations: ModuleIntegrationService;
  labels: LabelService;
  admin: AdminService;
  adminSessions: AdminSessionService;
  connectors: ConnectorService;
  catalog: CatalogService;
  feeds: FeedService;
  feedSubmit: FeedSubmitService;
  feedRecovery: FeedRecoveryService;
}

export interface AppDeps {
  config: Config;
  services: AppServices;
  logger: Logger;
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Fastify's trustProxy; a number of hops as the function Fastify makes of it (its types lack numbers). */
const trustProxyOption = (t: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) =>
  typeof t === 'number' ? (_address, hop) => hop < t : t;

/** The /docs tab's icon: a "w" on waybill's dark blue. */
const DOCS_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0f172a"/><text x="8" y="12" font-family="sans-serif" font-size="11" font-weight="bold" fill="#fff" text-anchor="middle">w</text></svg>';
const DOCS_CSP =
  "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; form-action 'self'; " +
  "frame-ancestors 'none'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'";

export async function buildApp({ config, services, logger }: AppDeps): Promise<App> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new RequestLines(),
    bodyLimit: config.bodyLimit,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // While closing, requests still arriving on open connections get 503 problem JSON (the
    // onRequest hook below) rather than Fastify's plain body.
    return503OnClosing: false,
    // Errors the router raises before any route (a malformed %-escape, a path segment over
    // 100 characters) answer problem JSON like every other error.
    frameworkErrors: (error, request, reply) => errorHandler(error, request, reply),
    clientErrorHandler: clientErrorReply,
    forceCloseConnections: 'idle',
    // `/shops/1` and `/shops/1/` are one resource (one real client leaves the slash off): the
    // router matches both forms of every path, so nothing is redirected (a redirected write
    // would lose its body) and the OpenAPI document lists each operation once.
    routerOptions: { ignoreTrailingSlash: true },
    // X-Forwarded-Proto/-For/-Host count only from the proxies WAYBILL_TRUST_PROXY names.
    trustProxy: trustProxyOption(config.trustProxy),
    // The reply serializer has an Ajv of its own (to pick anyOf branches): it learns the
    // timestamp formats too, rather than ignoring them (with a warning on the console).
    serializerOpts: { ajv: { formats: timestampFormats } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // TRACE, PROPFIND and the other methods a path does not allow answer 405, not 404.
  routeEveryMethod(app);
  // The API takes JSON only: a text/plain body answers 415 instead of reaching validation.
  app.removeContentTypeParser('text/plain');
  // A body that is not UTF-8, nested too deep or holding too many values is refused before it
  // is parsed (jsonText: 400 or 413). An empty body where the route's body is optional (an
  // order action, a single DELETE) is no body, whatever its Content-Type says.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0 && (request.routeOptions.config.bodyOptional === true || request.routeOptions.schema?.body === undefined))
      return done(null, undefined);
    let text: string;
    try {
      text = jsonText(bytes);
    } catch (error) {
      return done(error as AppError, undefined);
    }
    // Numbers parsing would change (1e400, 9007199254740993) stay InexactNumber: validation refuses them by pointer.
    if (!mayHoldInexact(text)) return parseJson(request, text, done);
    return parseJson(request, text, (error, value) =>
      error ? done(error, undefined) : done(null, value === undefined ? value : parseJsonExact(text)),
    );
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
    return sendProblem(request, reply, 503, 'shutting_down', 'The server is shutting down; retry on another instance or shortly.', {
      headers: { 'retry-after': '5' },
    });
  });
  // A dashboard page that does not exist is a page too: adminPageRoutes sets the handler of /admin.
  app.setNotFoundHandler(sendNotFound);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // No reply is to be read as another type than it says (JSON taken for HTML or script).
    reply.header('x-content-type-options', 'nosniff');
  });

  await app.register(underPressure, {
    // Default 2 s: a busy start-up (module loading, migrations) must not shed the first requests.
    // 0 turns shedding off (under-pressure then checks nothing).
    maxEventLoopDelay: config.maxEventLoopDelayMs,
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
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Token <key>' },
          adminBearer: { type: 'http', scheme: 'bearer', description: 'WAYBILL_ADMIN_TOKEN (admin API)' },
        },
      },
      security: [{ token: [] }],
      // The order of the sections in /docs: what clients call first, the daemon's own last.
      tags: [
        { name: 'catalog', description: 'Products, variations and images: every write is a feed' },
        { name: 'feeds', description: 'The asynchronous catalog writes and their reports' },
        { name: 'orders', description: 'Orders taken in from marketplaces, their actions, shipments and labels' },
        { name: 'shops', description: 'The shops a key may see' },
        { name: 'tracking', description: 'Carrier tracking pushed to waybill' },
        { name: 'connectors', description: "Requests pushed to connectors (an ERP's or PIM's webhook)" },
        { name: 'system', description: 'Health, readiness and metrics' },
        { name: 'admin', description: 'The admin API (WAYBILL_ADMIN_TOKEN)' },
      ],
    },
  });
  app.addHook('onRoute', (route) => {
    // The Swagger UI serves HTML and assets.
    if (route.url.startsWith('/docs')) route.config = { ...route.config, html: true };
  });
  // The Swagger UI's files are all served from here (no CDN, no inline script), so its policy
  // allows this origin only; images may be data: URLs (its icons), and styles inline (it
  // injects a <style> at run time; a style cannot run code).
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
    staticCSP: DOCS_CSP,
    // waybill's name, not the framework's: no Swagger top bar, title or icon.
    theme: {
      title: 'waybill API',
      css: [{ filename: 'waybill.css', content: '.swagger-ui .topbar { display: none; }' }],
      favicon: [{ filename: 'waybill.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(DOCS_ICON) }],
    },
  });
  // Every documented route lists the error statuses it can answer (problem JSON), for an honest OpenAPI.
  app.addHook('onRoute', addProblemResponses);

  await app.register(acceptPlugin);
  await app.register(cookie, { secret: cookieSecret(config.adminToken) });
  await app.register(sameOriginPlugin, { publicUrl: config.publicUrl });
  const {
    shops,
    marketplaces,
    idempotency,
    health,
    webhooks,
    orders,
    moduleIntegrations,
    labels,
    admin,
    adminSessions,
    connectors,
    catalog,
    feeds,
    feedSubmit,
    feedRecovery,
  } = services;
  const { publicUrl } = config;
  // One throttle of wrong admin tokens, however they are presented (login form, Bearer, cookie).
  const throttle = new AdminLoginThrottle();
  await app.register(authPlugin, {
    shops,
    adminToken: config.adminToken,
    sessions: adminSessions,
    rateLimitPerMinute: config.rateLimitPerMinute,
    throttle,
  });
  await app.register(methodsPlugin);
  await app.register(idempotencyPlugin, { idempotency });

  await app.register(systemRoutes, { services: { health } });
  await app.register(receiverRoutes, { services: { connectors }, publicUrl });
  await app.register(metricsRoutes);
  await app.register(adminApiRoutes, { services: { shops, admin } });
  await app.register(adminPageRoutes, {
    services: { shops, webhooks, orders, marketplaces, admin, adminSessions, connectors, feeds, feedRecovery },
    adminToken: config.adminToken,
    publicUrl,
    throttle,
  });
  await app.register(orderRoutes, { services: { orders, moduleIntegrations, labels }, publicUrl });
  await app.register(catalogRoutes, { services: { catalog, feedSubmit }, publicUrl });
  await app.register(variationRoutes, { services: { catalog, feedSubmit }, publicUrl });
  await app.register(imageRoutes, { services: { catalog, feedSubmit }, publicUrl });
  await app.register(fieldRoutes);
  await app.register(feedRoutes, { services: { feeds }, publicUrl });
  await app.register(shopRoutes, { services: { shops, marketplaces }, publicUrl });
  return app;
}
