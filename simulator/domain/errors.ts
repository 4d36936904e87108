/**
 * The domain's error catalogue: one shape mirroring the API's error envelope
 * (§7), so one HTTP middleware turns any domain refusal into a response.
 */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'NOT_INTEGRATION_TOKEN'
  | 'INTEGRATION_DISABLED'
  | 'NOT_FOUND'
  | 'UNAVAILABLE'
  | 'IN_PROGRESS'
  | 'VALIDATION_FAILED'
  | 'IDEMPOTENCY_KEY_REQUIRED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'PROPERTY_NOT_MAPPED'
  | 'PROPERTY_ARCHIVED'
  | 'UNIT_NOT_MAPPED'
  | 'UNIT_INACTIVE'
  | 'SYNC_TOO_SOON'
  | 'RATE_LIMITED';

/** §7: the HTTP status of each code. */
export const STATUS_OF: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  NOT_INTEGRATION_TOKEN: 403,
  INTEGRATION_DISABLED: 403,
  NOT_FOUND: 404,
  UNAVAILABLE: 409,
  IN_PROGRESS: 409,
  VALIDATION_FAILED: 422,
  IDEMPOTENCY_KEY_REQUIRED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  PROPERTY_NOT_MAPPED: 422,
  PROPERTY_ARCHIVED: 422,
  UNIT_NOT_MAPPED: 422,
  UNIT_INACTIVE: 422,
  SYNC_TOO_SOON: 429,
  RATE_LIMITED: 429,
};

const DEFAULT_MESSAGE: Record<ErrorCode, string> = {
  UNAUTHENTICATED: 'A valid API key is required.',
  NOT_INTEGRATION_TOKEN: 'This token is not an integration API key.',
  INTEGRATION_DISABLED: 'This integration has been disabled.',
  NOT_FOUND: 'Not found.',
  UNAVAILABLE: 'No unit is available for the whole stay.',
  IN_PROGRESS: 'An identical request with this Idempotency-Key is still being processed.',
  VALIDATION_FAILED: 'The given data was invalid.',
  IDEMPOTENCY_KEY_REQUIRED: 'An Idempotency-Key header of 8 to 128 characters is required.',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was already used with a different request body.',
  PROPERTY_NOT_MAPPED: 'The property is not mapped to this integration.',
  PROPERTY_ARCHIVED: 'The property has been archived by the host.',
  UNIT_NOT_MAPPED: 'A unit is not mapped to this property.',
  UNIT_INACTIVE: 'A unit has been deactivated by the host.',
  SYNC_TOO_SOON: 'A full sync was requested less than 24 hours ago.',
  RATE_LIMITED: 'Too many requests.',
};

/** A refusal the API answers with its error envelope. */
export class DomainError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly errors: Record<string, unknown> = {},
    message: string = DEFAULT_MESSAGE[code],
    /** Response headers the refusal carries (`Retry-After` on 429). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = STATUS_OF[code];
  }
}

/** Refuses with VALIDATION_FAILED naming one field (§7: errors keyed by field path). */
export function invalid(field: string, message: string): DomainError {
  return new DomainError('VALIDATION_FAILED', { [field]: [message] });
}

export function notFound(): DomainError {
  return new DomainError('NOT_FOUND');
}
