/**
 * §4.5 rule 2 and §8: an Idempotency-Key of 8 to 128 characters; outside them it is unusable (422
 * IDEMPOTENCY_KEY_REQUIRED). One home for the simulator's refusal (simulator/domain/idempotency.ts) and the clients'
 * resend rule (resend-rule.ts); spec/openapi.yaml's IdempotencyKey parameter states the same bounds to partners.
 */
export const IDEMPOTENCY_KEY_LENGTH = { min: 8, max: 128 } as const;
