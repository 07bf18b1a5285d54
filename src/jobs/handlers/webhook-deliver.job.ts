// webhook.deliver: one signed POST to a shop's webhook URL. A few quick retries here
// (p-retry) ride out a blip; past them the job itself is retried by the queue with backoff.
import pRetry from 'p-retry';
import { isTransient } from '../../errors.ts';
import type { WebhookService } from '../../webhooks/webhooks.service.ts';
import type { JobHandler } from '../job-map.ts';

export const webhookDeliver = (webhooks: Pick<WebhookService, 'deliver'>): JobHandler<'webhook.deliver'> => async (data, ctx) => {
  const result = await pRetry(
    () => webhooks.deliver(data.shopPk, data.messageId, data.event, data.payload, ctx.signal),
    { retries: 2, minTimeout: 500, factor: 3, randomize: true, signal: ctx.signal, shouldRetry: ({ error }) => isTransient(error) },
  );
  if (result.recordError !== undefined) ctx.log.warn({ err: result.recordError, messageId: data.messageId }, 'webhook delivered, but its attempt could not be recorded');
  ctx.log.info({ event: data.event, messageId: data.messageId, status: result.status }, 'webhook delivered');
};
