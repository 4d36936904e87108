/** The check catalogue: every suite's checks, in the order a run goes through them. */
import type { CheckDefinition } from './check.ts';
import { authChecks } from './suites/auth.ts';
import { visibilityChecks } from './suites/visibility.ts';
import { bookingChecks } from './suites/booking.ts';
import { idempotencyChecks } from './suites/idempotency.ts';
import { paginationChecks } from './suites/pagination.ts';
import { schemaChecks } from './suites/schema.ts';
import { errorMappingChecks } from './suites/error-mapping.ts';
import { validationChecks } from './suites/validation.ts';
import { hostChangeChecks } from './suites/host-changes.ts';
import { externalIdLengthChecks } from './suites/external-id-length.ts';
import { fieldRuleChecks } from './suites/field-rules.ts';
import { createLimitChecks } from './suites/create-limits.ts';
import { referencesAgreeChecks } from './suites/references-agree.ts';
import { sequencingChecks } from './suites/sequencing.ts';
import { readingUntrackedChecks } from './suites/reading-untracked.ts';
import { horizonChecks } from './suites/horizon.ts';
import { supersessionChecks } from './suites/supersession.ts';
import { liveSupersessionChecks } from './suites/supersession-live.ts';
import { watermarkChecks } from './suites/watermark.ts';
import { syncChecks } from './suites/sync.ts';
import { webhookChecks } from './suites/webhooks.ts';
import { autoPauseChecks } from './suites/auto-pause.ts';
import { modelChecks } from './suites/model.ts';
import { integrationRecordChecks } from './suites/integration-record.ts';
import { dotSegmentChecks } from './suites/dot-segments.ts';

export function catalogue(): CheckDefinition[] {
  return [
    ...schemaChecks, ...errorMappingChecks, ...authChecks, ...dotSegmentChecks, ...visibilityChecks, ...validationChecks, ...hostChangeChecks, ...externalIdLengthChecks, ...fieldRuleChecks, ...createLimitChecks, ...referencesAgreeChecks, ...bookingChecks, ...idempotencyChecks, ...paginationChecks,
    ...sequencingChecks, ...readingUntrackedChecks, ...horizonChecks, ...supersessionChecks, ...liveSupersessionChecks, ...watermarkChecks, ...syncChecks, ...webhookChecks, ...integrationRecordChecks, ...autoPauseChecks, ...modelChecks,
  ];
}
