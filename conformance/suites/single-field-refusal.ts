/**
 * §7: the code a request refused for one bad field earns. A create whose property reference is missing (no
 * `property`, or one with neither doorloom_id nor external_id: §4.5 "neither given: 422") is PROPERTY_NOT_MAPPED,
 * "property reference missing"; any other bad field is VALIDATION_FAILED. Read from the document, not asked of the
 * contract loader: the simulator maps refusals with that same loader (spec x-missing-code), so a check that asked it
 * would agree with whatever mapping the loader made.
 */
export function singleFieldRefusal(operationId: string, body: Record<string, unknown>): 'PROPERTY_NOT_MAPPED' | 'VALIDATION_FAILED' {
  if (operationId !== 'createBooking') return 'VALIDATION_FAILED';
  const property = body.property as Record<string, unknown> | null | undefined;
  const noReference = property !== null && typeof property === 'object' && !Array.isArray(property) && property.doorloom_id === undefined && property.external_id === undefined;
  return property === undefined || noReference ? 'PROPERTY_NOT_MAPPED' : 'VALIDATION_FAILED';
}
