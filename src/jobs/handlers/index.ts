// The handler of every job in the job map. The JobHandlers type makes a missing one a type
// error; JobQueue.work checks again at start-up.
import type { Services } from '../../services.ts';
import type { JobHandlers } from '../job-map.ts';
import { connectorRun } from './connector-run.job.ts';
import { feedProcess } from './feed-process.job.ts';
import { feedPrune } from './feed-prune.job.ts';
import { feedRecover } from './feed-recover.job.ts';
import { webhookDeliver } from './webhook-deliver.job.ts';

export const buildHandlers = (services: Services): JobHandlers => ({
  'webhook.deliver': webhookDeliver(services),
  'connector.run': connectorRun(services),
  'feed.process': feedProcess(services, 'feed.process'),
  'feed.process.small': feedProcess(services, 'feed.process.small'),
  'feed.prune': feedPrune(services),
  'feed.recover': feedRecover(services),
});
