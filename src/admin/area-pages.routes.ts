// Dashboard pages of the feeds, connectors and orders areas: registered only when this process
// has those services.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';
import type { Nav } from './views/layout.ts';

export const areaPages: FastifyPluginAsyncTypebox<{ services: Services; nav: Nav }> = async () => {};
