// GET /fields/: the field catalog (field-catalog.ts), the same data request validation and the
// OpenAPI document are built from.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { allowOnly } from '../http/plugins/methods.ts';
import { publicCatalog } from './field-catalog.ts';

const FIELDS = '/fields/';
const ALLOW = 'GET, OPTIONS';
const nullableInt = Type.Union([Type.Number(), Type.Null()]);

export const FieldJson = Type.Object({
  name: Type.String(),
  text: Type.String(),
  format: Type.String({ description: 'text, numeric_text, integer, decimal, boolean, timestamp, datetime, choice, images, variations' }),
  requirement: Type.Union([Type.Literal('Required'), Type.Literal('Recommended'), Type.Literal('Optional')]),
  max_length: nullableInt,
  min_num: nullableInt,
  max_num: nullableInt,
  options: Type.Union([Type.Array(Type.Object({ value: Type.String(), text: Type.String() })), Type.Null()]),
  in_variation: Type.Boolean(),
});

export const fieldRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    FIELDS,
    {
      config: { auth: 'shop', allow: ALLOW },
      schema: {
        tags: ['catalog'],
        summary: 'The field catalog: every documented Product and Variation field with its rules',
        description: 'Any other field of a product or variation is a category attribute: stored and returned as sent.',
        response: { 200: Type.Array(FieldJson) },
      },
    },
    async () => publicCatalog(),
  );
  allowOnly(app, FIELDS, ALLOW);
};
