// webhook.deliver: one signed POST to a shop's webhook URL per attempt. A failure is retried
// by the queue with backoff (queueSettings), so each of the job's attempts is one POST, and the
// Jobs page and the Webhooks page count the same attempts.
import type { WebhookService } from '../../webhooks/webhooks.service.ts';
import type { JobHandler } from '../job-map.ts';

export const webhookDeliver =
  (webhooks: Pick<WebhookService, 'deliver'>): JobHandler<'webhook.deliver'> =>
  async (data, ctx) => {
    const result = await webhooks.deliver(data.shopPk, data.messageId, data.event, data.payload, ctx.signal);
    if (result.recordError !== undefined)
      ctx.log.warn({ err: result.recordError, messageId: data.messageId }, 'webhook delivered, but its attempt could not be recorded');
    ctx.log.info({ event: data.event, messageId: data.messageId, status: result.status }, 'webhook delivered');
  };
