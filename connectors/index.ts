// Every connector type waybill knows, in one explicit list, handed to the connector host by
// src/main.ts. A config entry's `type` must be one of these; adding a type = adding its folder
// and one line here.
import type { AnyConnectorDefinition } from './sdk/index.ts';
import { catalogAkeneo } from './catalog-akeneo/index.ts';
import { catalogFile } from './catalog-file/index.ts';
import { catalogShopify } from './catalog-shopify/index.ts';
import { catalogWebhook } from './catalog-webhook/index.ts';
import { catalogWoocommerce } from './catalog-woocommerce/index.ts';
import { trackingAftership } from './tracking-aftership/index.ts';
import { trackingDhl } from './tracking-dhl/index.ts';
import { trackingEasypost } from './tracking-easypost/index.ts';
import { trackingHttp } from './tracking-http/index.ts';

export const connectorTypes: readonly AnyConnectorDefinition[] = [
  catalogFile,
  catalogWebhook,
  catalogWoocommerce,
  catalogAkeneo,
  catalogShopify,
  trackingDhl,
  trackingAftership,
  trackingHttp,
  trackingEasypost,
];
