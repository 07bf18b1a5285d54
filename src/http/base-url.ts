import type { FastifyRequest } from 'fastify';

/** {base_url} of the documented interface: PUBLIC_URL, else the request's own protocol and Host. */
export const baseUrl = (request: FastifyRequest, publicUrl: string | undefined): string =>
  publicUrl ?? `${request.protocol}://${request.host}`;
