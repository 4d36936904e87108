/** The check catalogue: every suite's checks, in the order a run goes through them. */
import type { CheckDefinition } from './check.ts';
import { authChecks } from './suites/auth.ts';
import { idempotencyChecks } from './suites/idempotency.ts';
import { paginationChecks } from './suites/pagination.ts';
import { schemaChecks } from './suites/schema.ts';
import { validationChecks } from './suites/validation.ts';

export function catalogue(): CheckDefinition[] {
  return [...schemaChecks, ...authChecks, ...validationChecks, ...idempotencyChecks, ...paginationChecks];
}
