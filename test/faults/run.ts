// npm run test:faults [-- name...]: the reliability scenarios, one PASS/FAIL line each.
import { runScenarios } from './harness.ts';
import { duplicates } from './duplicates.scenario.ts';
import { kill9Feed } from './kill9-feed.scenario.ts';
import { pgRestart } from './pg-restart.scenario.ts';
import { poison } from './poison.scenario.ts';
import { replicas } from './replicas.scenario.ts';
import { fuzz } from './fuzz.scenario.ts';
import { fairness } from './fairness.scenario.ts';
import { hugeReply } from './huge-reply.scenario.ts';
import { security } from './security.scenario.ts';
import { carrierSecurity } from './security/carriers.ts';
import { fileDelta, hugeRequest, unstorableItem } from './intake.scenario.ts';
import { inboxRace, nulRow, protoNames, wideHeader } from './catalog-file.scenario.ts';

await runScenarios(
  'waybill fault scenarios',
  [
    kill9Feed,
    pgRestart,
    duplicates,
    poison,
    hugeReply,
    replicas,
    fuzz,
    security,
    carrierSecurity,
    hugeRequest,
    unstorableItem,
    fileDelta,
    inboxRace,
    wideHeader,
    nulRow,
    protoNames,
  ],
  // Run by name only (npm run test:faults -- fairness): its target is not met yet (docs/reliability.md).
  [fairness],
);
