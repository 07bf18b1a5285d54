// The connector SDK: the one import of a connector type (connectors/<type>/ imports this file
// and its own folder, nothing else; lint holds it). The contract and its ports, the errors a
// connector throws, the API's own product rules, content hashing, and the polling engine the
// carrier connectors share. The host (src/connectors/host) implements the ports.
export {
  defineConnector,
  OutboundError,
  isProblemCount,
  LAST_INPUT_KEY,
  MAX_THROTTLE_MS,
  throttled,
  ThrottledError,
  userError,
  type AnyConnectorDefinition,
  type CatalogPort,
  type ConnectorContext,
  type ConnectorDefinition,
  type DeltaItem,
  type DeltaStore,
  type HttpAnswer,
  type HttpGet,
  type HttpPort,
  type HttpRequest,
  type OutboundFailure,
  type ProcessedStore,
  type ReceiverContext,
  type ReceiverRequest,
  type ReceiverResponse,
  type RunReport,
  type StateStore,
  type SubmittedFeed,
  type TrackingPort,
  type ValidatedProduct,
} from './contract.ts';

// Errors a receiver answers with (problem JSON: code, status, message, headers).
export { AppError, badRequest, isTransient, notFound, type FieldError } from '../../src/errors.ts';

// The products POST's rules, for connectors that validate where they read (a catalog file's
// batches): the same schemas and validator the API uses.
export { Product, VariationCreate } from '../../src/catalog/catalog.schemas.ts';
export { validateProducts } from '../../src/catalog/product-validation.ts';
export { canonicalJson, contentHash, hashOfCanonical } from '../../src/catalog/content-hash.ts';
// The one validator (Ajv, shared rules; defaults filled in), for a connector's own data files.
export { validate } from '../../src/validation/ajv.ts';

// Standard Webhooks signatures (webhook-id, webhook-timestamp, webhook-signature).
export { verify as verifyStandardWebhook } from '../../src/webhooks/signature.ts';

// Carrier tracking: the normalized result a carrier's answer maps to, and the polling engine.
export {
  TRACKING_STATUSES,
  type TrackedShipment,
  type TrackingEvent,
  type TrackingResult,
  type TrackingStatus,
} from '../../src/tracking/tracking.schemas.ts';
export { pollShipments, type TrackingAdapter } from './tracking/engine.ts';
export { applyPushed, type PushedUpdate } from './tracking/push.ts';
export { CarrierError, type CarrierResponse } from './tracking/http.ts';
export { carrierTime, placeText, resultOf, textOf, withDelivery, type Place } from './tracking/map-util.ts';
export { ENV_NAME, pollingOptions, type PollingOptions } from './tracking/options.ts';
export { joinUrl, pathSegment } from './tracking/url.ts';

// How a system's product becomes waybill's where file presets and API pulls must agree: option
// names, attribute names, a sale as a discount, a parent's price and stock from its variations.
export { attributeName, discountOf, fillFromVariations, OPTION_FIELDS, optionField, saleEnd } from './catalog-rules.ts';

// Catalog pull from a system's API (Akeneo, WooCommerce, Shopify): common options and their
// address rule, the API call with the outbound rules, field tables, and the cursor engine.
export { checkBaseUrl, ON_DELETE, pullOptions, type OnDelete, type PullOptions } from './pull/options.ts';
export { ApiError, pullApi, rawPullApi, runError, type Api, type ApiRequest, type ApiResponse } from './pull/api.ts';
export { mapFields, type Conversion, type FieldRule } from './pull/fields.ts';
export { CURSOR_KEY, outOfStock, pullCatalog, type PulledProduct, type PullSource } from './pull/engine.ts';
