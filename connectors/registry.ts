// Every connector type waybill knows, in one explicit list. A config entry's `type` must be
// one of these; adding a type = adding its folder and one line here.
import type { AnyConnectorDefinition } from '../src/connectors/host/contract.ts';
import { catalogFile } from './catalog-file/index.ts';
import { catalogWebhook } from './catalog-webhook/index.ts';

export const connectorTypes: readonly AnyConnectorDefinition[] = [catalogFile, catalogWebhook];
