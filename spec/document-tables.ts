/**
 * The tables of "Partner Integration API: bookings, events, snapshots, sync
 * (version 2026-09)", transcribed as data.
 *
 * Why: the API document is not part of a user's clone, so the project must
 * carry what it says. `openapi-document.test.ts` checks `spec/openapi.yaml`
 * against these tables; every row cites the table or sentence it comes from.
 *
 * Rules for editing: transcribe, do not interpret. Where the document says
 * "not shown", the row says so (and the test checks nothing it cannot know).
 * The only facts not taken from the document are the ones marked
 * `fromConvention`: paths the document leaves unshown, fixed by the spec's
 * conventions (`/properties/{property}/rates`, `/properties/{property}/restrictions`,
 * `/properties`) and the exact `X-RateLimit-*` header names.
 */

/** JSON Schema primitive type names, as the spec writes them. */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

/** A literal the document gives as a value (enum member, default, const). */
export type Literal = string | number | boolean | null;

// ---------------------------------------------------------------------------
// Value sets
// ---------------------------------------------------------------------------

/** §9: the API version, shown as `api_version` (§2.1) and event `version` (§2.5). */
export const API_VERSION = '2026-09';

/** Conventions: all paths are relative to `{base_url}/api/integrations/v1`. */
export const BASE_PATH = '/api/integrations/v1';

/** §1 item 3, §6: the six event types. */
export const EVENT_TYPES = [
  'availability.changed',
  'rates.changed',
  'restrictions.changed',
  'inventory.changed',
  'property.changed',
  'booking.changed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** §4.7: `types` of POST /sync, short spellings ("Omit for all five": no booking). */
export const SYNC_TYPES_SHORT = ['availability', 'rates', 'restrictions', 'inventory', 'property'] as const;
/** §4.7: "the `.changed` spellings are also accepted"; also the normalised names in the 202 body. */
export const SYNC_TYPES_CHANGED = [
  'availability.changed',
  'rates.changed',
  'restrictions.changed',
  'inventory.changed',
  'property.changed',
] as const;
/** §4.7: every value the POST /sync `types` array accepts. */
export const SYNC_BODY_TYPES = [...SYNC_TYPES_SHORT, ...SYNC_TYPES_CHANGED] as const;

/** §2.3, §3.2, §4.4: booking statuses. */
export const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled', 'completed', 'refunded'] as const;
/** §4.5: `status` accepted on create; default `confirmed`. */
export const CREATE_BOOKING_STATUSES = ['confirmed', 'pending'] as const;
/** §2.1, §3.1: integration statuses. */
export const INTEGRATION_STATUSES = ['active', 'paused', 'disabled'] as const;
/** §2.1: `webhook.paused_reason` (nullable). */
export const PAUSED_REASONS = ['manual', 'auto', 'gone'] as const;
/** §2.6, §3.3: event delivery statuses. */
export const EVENT_DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'dead', 'superseded'] as const;
/** §4.5: `units[].meal_plan`. */
export const MEAL_PLANS = ['EP', 'CP', 'MP', 'AP'] as const;
/** §4.5: `payment.status`. */
export const PAYMENT_STATUSES = ['paid', 'partial', 'unpaid'] as const;
/** §4.5: `payment.collected_by`. */
export const PAYMENT_COLLECTORS = ['partner', 'host'] as const;
/** §2.3, §4.5: the only currency. */
export const CURRENCIES = ['INR'] as const;
/** §2.4: `block_scope` values seen (plus null). "Full set of values: not shown." */
export const BLOCK_SCOPES_SEEN = ['everywhere', 'ota_only'] as const;

// ---------------------------------------------------------------------------
// Part 4: endpoints
// ---------------------------------------------------------------------------

export type HttpMethod = 'GET' | 'POST';

/** One endpoint of part 4. */
export interface EndpointRow {
  /** `METHOD /path`, the id used by every other table. */
  readonly key: string;
  readonly method: HttpMethod;
  /** Relative to the server base (`BASE_PATH`). */
  readonly path: string;
  readonly section: string;
  /** Every 2xx status the endpoint answers. */
  readonly successStatuses: readonly number[];
  /** True when the document leaves the path unshown and the spec convention fixes it. */
  readonly fromConvention?: boolean;
}

/** Part 4: every endpoint. */
export const ENDPOINTS = [
  // §4.1 Response 200
  { key: 'GET /me', method: 'GET', path: '/me', section: '§4.1', successStatuses: [200] },
  // §4.2 Response 200
  {
    key: 'GET /bookings/{doorloom_id}',
    method: 'GET',
    path: '/bookings/{doorloom_id}',
    section: '§4.2',
    successStatuses: [200],
  },
  // §4.3 Response 200
  {
    key: 'GET /bookings/external/{external_booking_id}',
    method: 'GET',
    path: '/bookings/external/{external_booking_id}',
    section: '§4.3',
    successStatuses: [200],
  },
  // §4.4 Response 200
  { key: 'GET /bookings', method: 'GET', path: '/bookings', section: '§4.4', successStatuses: [200] },
  // §4.5 rule 8: 201; rule 4: 200 for an existing external_booking_id (duplicate)
  { key: 'POST /bookings', method: 'POST', path: '/bookings', section: '§4.5', successStatuses: [201, 200] },
  // §4.6 Response 200
  { key: 'GET /events', method: 'GET', path: '/events', section: '§4.6', successStatuses: [200] },
  // §4.7 Response 202
  { key: 'POST /sync', method: 'POST', path: '/sync', section: '§4.7', successStatuses: [202] },
  // §4.8 Response 200
  {
    key: 'GET /properties/{property}/availability',
    method: 'GET',
    path: '/properties/{property}/availability',
    section: '§4.8',
    successStatuses: [200],
  },
  // §4.8 "The same request shape and envelope apply to the rates and restrictions snapshots.
  // Exact paths of these two endpoints: not shown." Paths from the spec convention.
  {
    key: 'GET /properties/{property}/rates',
    method: 'GET',
    path: '/properties/{property}/rates',
    section: '§4.8',
    successStatuses: [200],
    fromConvention: true,
  },
  {
    key: 'GET /properties/{property}/restrictions',
    method: 'GET',
    path: '/properties/{property}/restrictions',
    section: '§4.8',
    successStatuses: [200],
    fromConvention: true,
  },
  // §4.8 "a property list endpoint carries both. Its path, parameters and response: not shown."
  // Path and paging (page/per_page like GET /bookings) from the spec convention.
  {
    key: 'GET /properties',
    method: 'GET',
    path: '/properties',
    section: '§4.8',
    successStatuses: [200],
    fromConvention: true,
  },
] as const satisfies readonly EndpointRow[];

export type EndpointKey = (typeof ENDPOINTS)[number]['key'];

/** The three snapshot endpoints of §4.8 (same request shape and envelope). */
export const SNAPSHOT_ENDPOINTS = [
  'GET /properties/{property}/availability',
  'GET /properties/{property}/rates',
  'GET /properties/{property}/restrictions',
] as const satisfies readonly EndpointKey[];

/** The booking endpoints whose `data` is one booking object (§2.3 "returned by all booking endpoints"). */
export const SINGLE_BOOKING_RESPONSES = [
  { endpoint: 'GET /bookings/{doorloom_id}', status: 200, section: '§4.2' },
  { endpoint: 'GET /bookings/external/{external_booking_id}', status: 200, section: '§4.3' },
  { endpoint: 'POST /bookings', status: 201, section: '§4.5 rule 8' },
  { endpoint: 'POST /bookings', status: 200, section: '§4.5 rule 4' },
] as const satisfies readonly { endpoint: EndpointKey; status: number; section: string }[];

// ---------------------------------------------------------------------------
// Part 7: errors
// ---------------------------------------------------------------------------

/** Part 7 error table (coded rows). The bare 404 is `BARE_404`. */
export const ERROR_TABLE = [
  { status: 401, code: 'UNAUTHENTICATED', condition: 'No API key or an invalid key (including a rotated-out key).' },
  { status: 403, code: 'NOT_INTEGRATION_TOKEN', condition: 'Valid bearer token that is not an integration API key.' },
  { status: 403, code: 'INTEGRATION_DISABLED', condition: 'Integration disabled by staff.' },
  {
    status: 404,
    code: 'NOT_FOUND',
    condition: "No such booking or property for this integration (including other integrations' records).",
  },
  {
    status: 409,
    code: 'UNAVAILABLE',
    condition: 'Create: no free unit for the whole stay, or a pinned unit is taken. Nothing written.',
  },
  { status: 409, code: 'IN_PROGRESS', condition: 'Create: identical request still being processed.' },
  { status: 422, code: 'VALIDATION_FAILED', condition: 'Request failed validation.' },
  { status: 422, code: 'IDEMPOTENCY_KEY_REQUIRED', condition: 'Create without a usable `Idempotency-Key`.' },
  { status: 422, code: 'IDEMPOTENCY_KEY_REUSED', condition: 'Key reused with a different body.' },
  { status: 422, code: 'PROPERTY_NOT_MAPPED', condition: 'Property reference missing, unknown or outside coverage.' },
  { status: 422, code: 'PROPERTY_ARCHIVED', condition: 'Property covered but archived by the host.' },
  { status: 422, code: 'UNIT_NOT_MAPPED', condition: 'Unit alias unknown or belonging to another property.' },
  { status: 422, code: 'UNIT_INACTIVE', condition: 'Unit deactivated or deleted by the host.' },
  {
    status: 429,
    code: 'SYNC_TOO_SOON',
    condition: 'Full sync requested within 24 hours of the last one; `errors.retry_after` is seconds.',
  },
  {
    status: 429,
    code: 'RATE_LIMITED',
    condition: 'A rate limit was exceeded; `Retry-After` and `X-RateLimit-*` headers are set.',
  },
] as const;

export type ErrorCode = (typeof ERROR_TABLE)[number]['code'];

/** Every code of part 7, in table order. */
export const ERROR_CODES: readonly ErrorCode[] = ERROR_TABLE.map((row) => row.code);

/** Part 7 row "404 | (bare, empty body) | API switched off for the environment"; §5 item 6. */
export const BARE_404 = { status: 404, code: null, condition: 'API switched off for the environment (empty body).' } as const;

/** `[status, code]`; code `null` is the bare 404 with an empty body. */
export type ErrorRef = readonly [status: number, code: ErrorCode | null];

/**
 * Part 4 preamble: "Every endpoint can answer 401 UNAUTHENTICATED, 403 NOT_INTEGRATION_TOKEN,
 * 403 INTEGRATION_DISABLED and 429 RATE_LIMITED"; §5 item 6: the bare 404 on every route.
 */
export const UNIVERSAL_ERRORS = [
  [401, 'UNAUTHENTICATED'],
  [403, 'NOT_INTEGRATION_TOKEN'],
  [403, 'INTEGRATION_DISABLED'],
  [429, 'RATE_LIMITED'],
  [404, null],
] as const satisfies readonly ErrorRef[];

/**
 * Part 7 "Endpoint to error mapping" with the codes named in part 4, before the universal ones:
 * "create uses 409, 422 (idempotency, property, unit codes), 429; list and get use 404, 422 (list),
 * 429; /me uses 401, 403, 429; /events uses 422, 401, 429; /sync uses 422, 429 (both codes), 401;
 * snapshots use 422, 404, 401, 429."
 */
export const ENDPOINT_SPECIFIC_ERRORS = {
  // §7 "/me uses 401, 403, 429": universal only.
  'GET /me': [],
  // §4.2 "Other integration's or unknown booking: 404 NOT_FOUND"; §7 "get uses 404, 429".
  'GET /bookings/{doorloom_id}': [[404, 'NOT_FOUND']],
  // §4.3 "Otherwise 404 NOT_FOUND".
  'GET /bookings/external/{external_booking_id}': [[404, 'NOT_FOUND']],
  // §4.4 "Validation failure: 422 VALIDATION_FAILED"; §7 "list and get use 404, 422 (list), 429"
  // (404 is not limited to get; §1 visibility rule: another integration's property yields 404 NOT_FOUND).
  'GET /bookings': [
    [404, 'NOT_FOUND'],
    [422, 'VALIDATION_FAILED'],
  ],
  // §4.5 rules 1-3, 6-7 and "Other failures"; §7 "create uses 409, 422 (idempotency, property, unit codes), 429".
  'POST /bookings': [
    [409, 'UNAVAILABLE'],
    [409, 'IN_PROGRESS'],
    [422, 'IDEMPOTENCY_KEY_REQUIRED'],
    [422, 'IDEMPOTENCY_KEY_REUSED'],
    [422, 'PROPERTY_NOT_MAPPED'],
    [422, 'PROPERTY_ARCHIVED'],
    [422, 'UNIT_NOT_MAPPED'],
    [422, 'UNIT_INACTIVE'],
    [422, 'VALIDATION_FAILED'],
  ],
  // §4.6 "Errors: 422 VALIDATION_FAILED, 401, 429".
  'GET /events': [[422, 'VALIDATION_FAILED']],
  // §4.7 "Errors: 422 VALIDATION_FAILED, 422 PROPERTY_NOT_MAPPED, 429 SYNC_TOO_SOON, 429 RATE_LIMITED, 401".
  'POST /sync': [
    [422, 'VALIDATION_FAILED'],
    [422, 'PROPERTY_NOT_MAPPED'],
    [429, 'SYNC_TOO_SOON'],
  ],
  // §4.8 "Errors: 422 VALIDATION_FAILED ..., 404 NOT_FOUND (unknown or uncovered property), 401, 429";
  // "The same request shape and envelope apply to the rates and restrictions snapshots."
  'GET /properties/{property}/availability': [
    [404, 'NOT_FOUND'],
    [422, 'VALIDATION_FAILED'],
  ],
  'GET /properties/{property}/rates': [
    [404, 'NOT_FOUND'],
    [422, 'VALIDATION_FAILED'],
  ],
  'GET /properties/{property}/restrictions': [
    [404, 'NOT_FOUND'],
    [422, 'VALIDATION_FAILED'],
  ],
  // §4.8 property list: "Its path, parameters and response: not shown." Universal only.
  'GET /properties': [],
} as const satisfies Record<EndpointKey, readonly ErrorRef[]>;

/**
 * Errors the spec may declare although the document does not list them. Only the property
 * list, whose paging (page/per_page, like GET /bookings) comes from the spec convention.
 */
export const ENDPOINT_OPTIONAL_ERRORS = {
  'GET /me': [],
  'GET /bookings/{doorloom_id}': [],
  'GET /bookings/external/{external_booking_id}': [],
  'GET /bookings': [],
  'POST /bookings': [],
  'GET /events': [],
  'POST /sync': [],
  'GET /properties/{property}/availability': [],
  'GET /properties/{property}/rates': [],
  'GET /properties/{property}/restrictions': [],
  'GET /properties': [[422, 'VALIDATION_FAILED']],
} as const satisfies Record<EndpointKey, readonly ErrorRef[]>;

/** Every `[status, code]` each endpoint can answer: its own (part 7 mapping) plus the universal ones. */
export const ENDPOINT_ERRORS: Record<EndpointKey, readonly ErrorRef[]> = withUniversalErrors();

function withUniversalErrors(): Record<EndpointKey, readonly ErrorRef[]> {
  const out = {} as Record<EndpointKey, readonly ErrorRef[]>;
  for (const e of ENDPOINTS) out[e.key] = [...UNIVERSAL_ERRORS, ...ENDPOINT_SPECIFIC_ERRORS[e.key]];
  return out;
}

/** §7 RATE_LIMITED: "`Retry-After` and `X-RateLimit-*` headers are set" (names from the spec convention). */
export const RATE_LIMIT_HEADERS = ['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

// ---------------------------------------------------------------------------
// Field rules (parameters, request bodies, resources)
// ---------------------------------------------------------------------------

/** What the document says about one field, in JSON Schema terms. Unset = not stated, not checked. */
export interface FieldRule {
  /** Dotted path; `[]` steps into array items (`units[].adults`). */
  readonly path: string;
  /** The one type the field has. */
  readonly type?: JsonType;
  /** Types the field must accept; the schema may be wider. */
  readonly accepts?: readonly JsonType[];
  /** Document says "X or Y" where the choice depends on context: the schema's types lie within these. */
  readonly typeWithin?: readonly JsonType[];
  /** "or null": the type list includes `'null'` (and a nullable enum includes null). */
  readonly nullable?: boolean;
  /** true: in the parent's `required`; false: must not be; `'one-of-property'`: the §4.5 anyOf rule. */
  readonly required?: boolean | 'one-of-property';
  /** Closed value set the schema must list exactly (`enum` or `const`; null ignored). */
  readonly enum?: readonly Literal[];
  /** If the schema closes the value set, it must be exactly this. */
  readonly allowedValues?: readonly Literal[];
  /**
   * Values shown, full set not shown: the schema must not close the value set, unless it marks
   * the closing as an `x-assumption` (the project's way to fill a "not shown"); a closed set
   * must still hold every value shown.
   */
  readonly openValues?: readonly Literal[];
  /** Required JSON Schema `format`. */
  readonly format?: 'date' | 'email';
  /** If the schema sets a `format`, it must be this one. */
  readonly formatIfPresent?: 'date-time';
  /** The rule admits values no `format` covers: the schema must not set one. */
  readonly noFormat?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly default?: Literal;
  /** Rule for the array's items. */
  readonly items?: { readonly type: JsonType; readonly enum?: readonly Literal[]; readonly allowedValues?: readonly Literal[] };
  /** Where the rule comes from. */
  readonly section: string;
}

/** One documented parameter of an endpoint. */
export interface ParamRule extends FieldRule {
  readonly endpoint: EndpointKey;
  readonly in: 'query' | 'path' | 'header';
}

/** §4.4: query parameters of GET /bookings. */
export const BOOKING_LIST_QUERY = [
  { endpoint: 'GET /bookings', in: 'query', path: 'updated_since', type: 'string', required: false, noFormat: true, section: '§4.4' },
  { endpoint: 'GET /bookings', in: 'query', path: 'status', type: 'string', required: false, enum: BOOKING_STATUSES, section: '§4.4' },
  { endpoint: 'GET /bookings', in: 'query', path: 'property_id', type: 'integer', required: false, section: '§4.4' },
  { endpoint: 'GET /bookings', in: 'query', path: 'check_in_from', type: 'string', required: false, format: 'date', section: '§4.4' },
  { endpoint: 'GET /bookings', in: 'query', path: 'check_in_to', type: 'string', required: false, format: 'date', section: '§4.4' },
  // "1-based; default 1."
  { endpoint: 'GET /bookings', in: 'query', path: 'page', type: 'integer', required: false, minimum: 1, default: 1, section: '§4.4' },
  // "1 to 200; default 50." (§8 List page size)
  {
    endpoint: 'GET /bookings',
    in: 'query',
    path: 'per_page',
    type: 'integer',
    required: false,
    minimum: 1,
    maximum: 200,
    default: 50,
    section: '§4.4',
  },
] as const satisfies readonly ParamRule[];

/** §4.6: query parameters of GET /events. */
export const EVENTS_QUERY = [
  { endpoint: 'GET /events', in: 'query', path: 'after_sequence', type: 'integer', required: false, default: 0, section: '§4.6' },
  // "1 to 200; default 100." (§8 Replay page size)
  {
    endpoint: 'GET /events',
    in: 'query',
    path: 'limit',
    type: 'integer',
    required: false,
    minimum: 1,
    maximum: 200,
    default: 100,
    section: '§4.6',
  },
  { endpoint: 'GET /events', in: 'query', path: 'property_id', type: 'integer', required: false, section: '§4.6' },
  // "Repeated parameter `types[]`. Only these event types."
  {
    endpoint: 'GET /events',
    in: 'query',
    path: 'types[]',
    type: 'array',
    required: false,
    items: { type: 'string', enum: EVENT_TYPES },
    section: '§4.6',
  },
  // "Default off."
  {
    endpoint: 'GET /events',
    in: 'query',
    path: 'include_superseded',
    type: 'boolean',
    required: false,
    default: false,
    section: '§4.6',
  },
] as const satisfies readonly ParamRule[];

/** §4.8: `from`/`to` of a snapshot endpoint ("The same request shape ... apply to the rates and restrictions snapshots"). */
function snapshotQuery<E extends EndpointKey>(endpoint: E) {
  return [
    // "string YYYY-MM-DD, required, first night inclusive"
    { endpoint, in: 'query', path: 'from', type: 'string', required: true, format: 'date', section: '§4.8' },
    // "string YYYY-MM-DD, required, last night inclusive, on or after from"
    { endpoint, in: 'query', path: 'to', type: 'string', required: true, format: 'date', section: '§4.8' },
  ] as const satisfies readonly ParamRule[];
}

/** Property list paging: the spec convention ("paged like GET /bookings with page/per_page"). */
export const PROPERTY_LIST_QUERY = [
  {
    endpoint: 'GET /properties',
    in: 'query',
    path: 'page',
    type: 'integer',
    required: false,
    minimum: 1,
    default: 1,
    section: '§4.8 (paging as §4.4)',
  },
  {
    endpoint: 'GET /properties',
    in: 'query',
    path: 'per_page',
    type: 'integer',
    required: false,
    minimum: 1,
    maximum: 200,
    default: 50,
    section: '§4.8 (paging as §4.4)',
  },
] as const satisfies readonly ParamRule[];

/** Every documented query parameter, by endpoint. */
export const QUERY_PARAMETERS: readonly ParamRule[] = [
  ...BOOKING_LIST_QUERY,
  ...EVENTS_QUERY,
  ...SNAPSHOT_ENDPOINTS.flatMap((e) => snapshotQuery(e)),
  ...PROPERTY_LIST_QUERY,
];

/**
 * Endpoints whose query parameter set is fully documented (the spec must not add others).
 * The property list is absent: "Its path, parameters and response: not shown."
 */
export const QUERY_FULLY_DOCUMENTED: readonly EndpointKey[] = [
  'GET /me',
  'GET /bookings/{doorloom_id}',
  'GET /bookings/external/{external_booking_id}',
  'GET /bookings',
  'POST /bookings',
  'GET /events',
  'POST /sync',
  ...SNAPSHOT_ENDPOINTS,
];

/** Path parameters (§4.2, §4.3, §4.8). Path parameters are always required. */
export const PATH_PARAMETERS = [
  // §4.2 "Path segment must be numeric."
  { endpoint: 'GET /bookings/{doorloom_id}', in: 'path', path: 'doorloom_id', type: 'integer', required: true, section: '§4.2' },
  // §4.3 "The segment is the partner id, URL-encoded if needed."
  {
    endpoint: 'GET /bookings/external/{external_booking_id}',
    in: 'path',
    path: 'external_booking_id',
    type: 'string',
    required: true,
    section: '§4.3',
  },
  // §4.8 "{property} is a platform property id or the partner alias": must accept a string.
  ...SNAPSHOT_ENDPOINTS.map(
    (endpoint) => ({ endpoint, in: 'path', path: 'property', accepts: ['string'], required: true, section: '§4.8' }) as const,
  ),
] as const satisfies readonly ParamRule[];

/** §4.5 Headers: "Idempotency-Key (required, 8 to 128 characters ...)"; §8 Idempotency key length. */
export const HEADER_PARAMETERS = [
  {
    endpoint: 'POST /bookings',
    in: 'header',
    path: 'Idempotency-Key',
    type: 'string',
    required: true,
    minLength: 8,
    maxLength: 128,
    section: '§4.5',
  },
] as const satisfies readonly ParamRule[];

/** §4.5 Body: POST /bookings, as field paths. Body required ("yes" rows exist). */
export const CREATE_BOOKING_BODY = [
  { path: 'external_booking_id', type: 'string', required: true, maxLength: 128, section: '§4.5' },
  { path: 'property', type: 'object', required: true, section: '§4.5' },
  // "one of the two ... Neither given: 422."
  { path: 'property.doorloom_id', type: 'integer', required: 'one-of-property', section: '§4.5' },
  { path: 'property.external_id', type: 'string', required: 'one-of-property', maxLength: 128, section: '§4.5' },
  // "1 to 20 entries; one per unit booked."
  { path: 'units', type: 'array', required: true, minItems: 1, maxItems: 20, section: '§4.5' },
  { path: 'units[].inventory_id', type: 'integer', required: false, section: '§4.5' },
  { path: 'units[].external_unit_id', type: 'string', required: false, maxLength: 128, section: '§4.5' },
  { path: 'units[].adults', type: 'integer', required: true, minimum: 1, maximum: 50, section: '§4.5' },
  { path: 'units[].children', type: 'integer', required: false, minimum: 0, maximum: 50, default: 0, section: '§4.5' },
  { path: 'units[].meal_plan', type: 'string', required: false, enum: MEAL_PLANS, section: '§4.5' },
  { path: 'units[].stay_price', type: 'number', required: false, section: '§4.5' },
  { path: 'check_in', type: 'string', required: true, format: 'date', section: '§4.5' },
  { path: 'check_out', type: 'string', required: true, format: 'date', section: '§4.5' },
  { path: 'guest', type: 'object', required: true, section: '§4.5' },
  { path: 'guest.name', type: 'string', required: true, maxLength: 255, section: '§4.5' },
  { path: 'guest.phone_code', type: 'string', required: false, maxLength: 8, default: '+91', section: '§4.5' },
  { path: 'guest.mobile', type: 'string', required: true, maxLength: 20, section: '§4.5' },
  { path: 'guest.email', type: 'string', required: false, format: 'email', maxLength: 255, section: '§4.5' },
  { path: 'guest.country', type: 'string', required: false, maxLength: 64, section: '§4.5' },
  { path: 'pricing', type: 'object', required: true, section: '§4.5' },
  { path: 'pricing.total', type: 'number', required: true, section: '§4.5' },
  // "Must be INR if sent."
  { path: 'pricing.currency', type: 'string', required: false, enum: CURRENCIES, section: '§4.5' },
  { path: 'pricing.includes_gst', type: 'boolean', required: false, section: '§4.5' },
  // "Free-form; stored verbatim and returned unchanged."
  { path: 'pricing.breakdown', type: 'object', required: false, section: '§4.5' },
  { path: 'payment', type: 'object', required: false, section: '§4.5' },
  { path: 'payment.status', type: 'string', required: false, enum: PAYMENT_STATUSES, section: '§4.5' },
  { path: 'payment.amount_collected', type: 'number', required: false, section: '§4.5' },
  { path: 'payment.collected_by', type: 'string', required: false, enum: PAYMENT_COLLECTORS, section: '§4.5' },
  { path: 'payment.reference', type: 'string', required: false, maxLength: 128, section: '§4.5' },
  { path: 'source', type: 'object', required: false, section: '§4.5' },
  { path: 'source.channel', type: 'string', required: false, maxLength: 64, section: '§4.5' },
  { path: 'source.reference', type: 'string', required: false, maxLength: 128, section: '§4.5' },
  // "confirmed or pending; default confirmed."
  { path: 'status', type: 'string', required: false, enum: CREATE_BOOKING_STATUSES, default: 'confirmed', section: '§4.5' },
  { path: 'notes', type: 'string', required: false, maxLength: 2000, section: '§4.5' },
] as const satisfies readonly FieldRule[];

/** §4.5: members of the `anyOf` on `property` ("one of property.doorloom_id / property.external_id"). */
export const CREATE_BOOKING_PROPERTY_ONE_OF = ['doorloom_id', 'external_id'] as const;

/** §4.7 Body: POST /sync. "Body (optional, empty body means everything)". */
export const SYNC_BODY = [
  // "Up to 500 platform property ids" (§8 Properties per sync)
  { path: 'property_ids', type: 'array', required: false, maxItems: 500, items: { type: 'integer' }, section: '§4.7' },
  {
    path: 'types',
    type: 'array',
    required: false,
    items: { type: 'string', enum: SYNC_BODY_TYPES },
    section: '§4.7',
  },
] as const satisfies readonly FieldRule[];

// ---------------------------------------------------------------------------
// Part 8: limits that map to schema keywords
// ---------------------------------------------------------------------------

export type LimitKeyword = 'minimum' | 'maximum' | 'default' | 'minLength' | 'maxLength' | 'minItems' | 'maxItems';

/** One part 8 limit, as the schema keyword that expresses it. */
export interface LimitRule {
  readonly limit: string;
  readonly endpoint: EndpointKey;
  readonly location: 'query' | 'header' | 'body';
  readonly field: string;
  readonly keyword: LimitKeyword;
  readonly value: number;
}

/**
 * Part 8 rows that a schema keyword can carry. Not keyword-shaped (not here): event retention,
 * idempotency key memory, check-in earliest date, full sync interval and daily cap, snapshot window
 * (92 days) and horizon (730 days), event horizon, health-check polling, auto-pause, secret validity.
 */
export const LIMITS = [
  // §8 List page size: 1 to 200, default 50 (GET /bookings per_page)
  { limit: 'List page size', endpoint: 'GET /bookings', location: 'query', field: 'per_page', keyword: 'minimum', value: 1 },
  { limit: 'List page size', endpoint: 'GET /bookings', location: 'query', field: 'per_page', keyword: 'maximum', value: 200 },
  { limit: 'List page size', endpoint: 'GET /bookings', location: 'query', field: 'per_page', keyword: 'default', value: 50 },
  // §8 Replay page size: 1 to 200, default 100 (GET /events limit)
  { limit: 'Replay page size', endpoint: 'GET /events', location: 'query', field: 'limit', keyword: 'minimum', value: 1 },
  { limit: 'Replay page size', endpoint: 'GET /events', location: 'query', field: 'limit', keyword: 'maximum', value: 200 },
  { limit: 'Replay page size', endpoint: 'GET /events', location: 'query', field: 'limit', keyword: 'default', value: 100 },
  // §8 Idempotency key length: 8 to 128 characters
  { limit: 'Idempotency key length', endpoint: 'POST /bookings', location: 'header', field: 'Idempotency-Key', keyword: 'minLength', value: 8 },
  { limit: 'Idempotency key length', endpoint: 'POST /bookings', location: 'header', field: 'Idempotency-Key', keyword: 'maxLength', value: 128 },
  // §8 Units per booking: 1 to 20
  { limit: 'Units per booking', endpoint: 'POST /bookings', location: 'body', field: 'units', keyword: 'minItems', value: 1 },
  { limit: 'Units per booking', endpoint: 'POST /bookings', location: 'body', field: 'units', keyword: 'maxItems', value: 20 },
  // §8 Adults / children per unit: 1 to 50 / 0 to 50
  { limit: 'Adults per unit', endpoint: 'POST /bookings', location: 'body', field: 'units[].adults', keyword: 'minimum', value: 1 },
  { limit: 'Adults per unit', endpoint: 'POST /bookings', location: 'body', field: 'units[].adults', keyword: 'maximum', value: 50 },
  { limit: 'Children per unit', endpoint: 'POST /bookings', location: 'body', field: 'units[].children', keyword: 'minimum', value: 0 },
  { limit: 'Children per unit', endpoint: 'POST /bookings', location: 'body', field: 'units[].children', keyword: 'maximum', value: 50 },
  // §8 String lengths: external ids 128; guest name 255; phone_code 8; mobile 20; email 255; country 64; channel 64; notes 2000
  { limit: 'String lengths (external ids)', endpoint: 'POST /bookings', location: 'body', field: 'external_booking_id', keyword: 'maxLength', value: 128 },
  { limit: 'String lengths (external ids)', endpoint: 'POST /bookings', location: 'body', field: 'property.external_id', keyword: 'maxLength', value: 128 },
  { limit: 'String lengths (external ids)', endpoint: 'POST /bookings', location: 'body', field: 'units[].external_unit_id', keyword: 'maxLength', value: 128 },
  { limit: 'String lengths (guest name)', endpoint: 'POST /bookings', location: 'body', field: 'guest.name', keyword: 'maxLength', value: 255 },
  { limit: 'String lengths (phone_code)', endpoint: 'POST /bookings', location: 'body', field: 'guest.phone_code', keyword: 'maxLength', value: 8 },
  { limit: 'String lengths (mobile)', endpoint: 'POST /bookings', location: 'body', field: 'guest.mobile', keyword: 'maxLength', value: 20 },
  { limit: 'String lengths (email)', endpoint: 'POST /bookings', location: 'body', field: 'guest.email', keyword: 'maxLength', value: 255 },
  { limit: 'String lengths (country)', endpoint: 'POST /bookings', location: 'body', field: 'guest.country', keyword: 'maxLength', value: 64 },
  { limit: 'String lengths (channel)', endpoint: 'POST /bookings', location: 'body', field: 'source.channel', keyword: 'maxLength', value: 64 },
  { limit: 'String lengths (notes)', endpoint: 'POST /bookings', location: 'body', field: 'notes', keyword: 'maxLength', value: 2000 },
  // §8 Properties per sync: up to 500
  { limit: 'Properties per sync', endpoint: 'POST /sync', location: 'body', field: 'property_ids', keyword: 'maxItems', value: 500 },
] as const satisfies readonly LimitRule[];

/** §8 Event retention (30 days) as shown in the replay cursor: `retention_days` "currently 30" (§4.6). */
export const EVENT_RETENTION_DAYS = 30;

// ---------------------------------------------------------------------------
// Part 2: resources and their fields (response shapes)
// ---------------------------------------------------------------------------

/** Top of the document: "Success envelope: {success: true, message: string, data: ...}". */
export const SUCCESS_ENVELOPE = [
  { path: 'success', type: 'boolean', required: true, allowedValues: [true], section: 'conventions' },
  { path: 'message', type: 'string', required: true, section: 'conventions' },
  { path: 'data', required: true, section: 'conventions' },
] as const satisfies readonly FieldRule[];

/** Top of the document and part 7: "{success: false, code: string, message: string, errors: object}". */
export const ERROR_ENVELOPE = [
  { path: 'success', type: 'boolean', required: true, allowedValues: [false], section: '§7' },
  { path: 'code', type: 'string', required: true, section: '§7' },
  { path: 'message', type: 'string', required: true, section: '§7' },
  { path: 'errors', type: 'object', required: true, section: '§7' },
] as const satisfies readonly FieldRule[];

/** §2.1: the integration object (`data` of GET /me). */
export const INTEGRATION_FIELDS = [
  { path: 'id', type: 'integer', section: '§2.1' },
  { path: 'slug', type: 'string', section: '§2.1' },
  { path: 'name', type: 'string', section: '§2.1' },
  { path: 'status', type: 'string', enum: INTEGRATION_STATUSES, section: '§2.1' },
  { path: 'brand.id', type: 'integer', section: '§2.1' },
  { path: 'brand.name', type: 'string', section: '§2.1' },
  // "Currently 2026-09." (§9)
  { path: 'api_version', type: 'string', allowedValues: [API_VERSION], section: '§2.1' },
  { path: 'webhook.configured', type: 'boolean', section: '§2.1' },
  { path: 'webhook.url', type: 'string', nullable: true, section: '§2.1' },
  // "Subscribed event types. All six unless staff narrowed it."
  {
    path: 'webhook.event_types',
    type: 'array',
    items: { type: 'string', allowedValues: EVENT_TYPES },
    section: '§2.1',
  },
  { path: 'webhook.last_sequence', type: 'integer', section: '§2.1' },
  { path: 'webhook.undelivered_events', type: 'integer', section: '§2.1' },
  { path: 'webhook.consecutive_failures', type: 'integer', section: '§2.1' },
  { path: 'webhook.last_success_at', type: 'string', nullable: true, formatIfPresent: 'date-time', section: '§2.1' },
  { path: 'webhook.last_failure_at', type: 'string', nullable: true, formatIfPresent: 'date-time', section: '§2.1' },
  { path: 'webhook.paused_at', type: 'string', nullable: true, formatIfPresent: 'date-time', section: '§2.1' },
  { path: 'webhook.paused_reason', type: 'string', nullable: true, enum: PAUSED_REASONS, section: '§2.1' },
  { path: 'horizon_days', type: 'integer', section: '§2.1' },
  { path: 'covered_properties', type: 'integer', section: '§2.1' },
] as const satisfies readonly FieldRule[];

/** §2.3: the booking object, fields that are shown ("the sample is abridged"; `units` elements not shown). */
export const BOOKING_FIELDS = [
  { path: 'id', type: 'integer', section: '§2.3' },
  { path: 'external_booking_id', type: 'string', section: '§2.3' },
  { path: 'revision', type: 'integer', section: '§2.3' },
  // "partner for bookings created through this API. Other values: not shown."
  { path: 'origin', type: 'string', openValues: ['partner'], section: '§2.3' },
  { path: 'status', type: 'string', enum: BOOKING_STATUSES, section: '§2.3' },
  { path: 'property.doorloom_id', type: 'integer', section: '§2.3' },
  { path: 'property.external_id', type: 'string', section: '§2.3' },
  { path: 'check_in', type: 'string', format: 'date', section: '§2.3' },
  { path: 'check_out', type: 'string', format: 'date', section: '§2.3' },
  { path: 'guests.adults', type: 'integer', section: '§2.3' },
  { path: 'guests.children', type: 'integer', section: '§2.3' },
  { path: 'units', type: 'array', section: '§2.3' },
  { path: 'pricing.currency', type: 'string', allowedValues: CURRENCIES, section: '§2.3' },
  { path: 'pricing.total', type: 'number', section: '§2.3' },
  { path: 'pricing.advance', type: 'number', section: '§2.3' },
  { path: 'pricing.balance', type: 'number', section: '§2.3' },
  // "Added with value true only on a 200 duplicate response to create."
  { path: 'duplicate', type: 'boolean', required: false, section: '§2.3' },
  { path: 'updated_at', type: 'string', formatIfPresent: 'date-time', section: '§2.3' },
] as const satisfies readonly FieldRule[];

/** §2.4: availability date entry (snapshots and 409 conflict bodies). */
export const AVAILABILITY_DATE_FIELDS = [
  { path: 'date', type: 'string', format: 'date', section: '§2.4' },
  { path: 'available_units', type: 'integer', section: '§2.4' },
  { path: 'total_units', type: 'integer', section: '§2.4' },
  { path: 'is_blocked', type: 'boolean', section: '§2.4' },
  // "Values seen: everywhere, ota_only, null. Full set of values: not shown."
  { path: 'block_scope', type: 'string', nullable: true, openValues: [...BLOCK_SCOPES_SEEN, null], section: '§2.4' },
  { path: 'units_cap', type: 'integer', nullable: true, section: '§2.4' },
] as const satisfies readonly FieldRule[];

/** §2.5: the event envelope (webhook bodies; `event` of an event row). */
export const EVENT_ENVELOPE_FIELDS = [
  { path: 'id', type: 'string', section: '§2.5' },
  { path: 'type', type: 'string', enum: EVENT_TYPES, section: '§2.5' },
  { path: 'version', type: 'string', allowedValues: [API_VERSION], section: '§2.5' },
  { path: 'sequence', type: 'integer', section: '§2.5' },
  { path: 'occurred_at', type: 'string', formatIfPresent: 'date-time', section: '§2.5' },
  { path: 'integration.id', type: 'integer', section: '§2.5' },
  { path: 'integration.slug', type: 'string', section: '§2.5' },
  { path: 'property.doorloom_id', type: 'integer', section: '§2.5' },
  { path: 'property.external_id', type: 'string', section: '§2.5' },
  { path: 'property.master_property_id', type: 'integer', section: '§2.5' },
  { path: 'window.from', type: 'string', format: 'date', section: '§2.5' },
  { path: 'window.to', type: 'string', format: 'date', section: '§2.5' },
  // "array or object. Type-specific payload (see part 6)."
  { path: 'data', typeWithin: ['array', 'object'], section: '§2.5' },
] as const satisfies readonly FieldRule[];

/** §2.6: event row (elements of `data` of GET /events). */
export const EVENT_ROW_FIELDS = [
  { path: 'sequence', type: 'integer', section: '§2.6' },
  { path: 'status', type: 'string', enum: EVENT_DELIVERY_STATUSES, section: '§2.6' },
  { path: 'delivered_at', type: 'string', nullable: true, formatIfPresent: 'date-time', section: '§2.6' },
  { path: 'event', type: 'object', section: '§2.6' },
] as const satisfies readonly FieldRule[];

/** §2.7: snapshot envelope (`data` of a snapshot response; the payload is at `data.data`). */
export const SNAPSHOT_FIELDS = [
  { path: 'sequence', type: 'integer', section: '§2.7' },
  { path: 'property.doorloom_id', type: 'integer', section: '§2.7' },
  { path: 'property.external_id', type: 'string', section: '§2.7' },
  { path: 'window.from', type: 'string', format: 'date', section: '§2.7' },
  { path: 'window.to', type: 'string', format: 'date', section: '§2.7' },
  { path: 'data', section: '§2.7' },
] as const satisfies readonly FieldRule[];

/** §4.8: the availability payload `data.data` ("holds total_units, units[] and dates[]"). */
export const AVAILABILITY_PAYLOAD_FIELDS = [
  { path: 'total_units', type: 'integer', section: '§4.8' },
  { path: 'units', type: 'array', section: '§4.8' },
  { path: 'dates', type: 'array', section: '§4.8' },
] as const satisfies readonly FieldRule[];

/** §4.4: top-level sibling `pagination` ("all integers"); `data.pagination` does not exist. */
export const PAGINATION_FIELDS = [
  { path: 'page', type: 'integer', section: '§4.4' },
  { path: 'per_page', type: 'integer', section: '§4.4' },
  { path: 'total', type: 'integer', section: '§4.4' },
  { path: 'last_page', type: 'integer', section: '§4.4' },
] as const satisfies readonly FieldRule[];

/** §4.6: top-level sibling `cursor` (not inside `data`). */
export const CURSOR_FIELDS = [
  { path: 'after_sequence', type: 'integer', section: '§4.6' },
  { path: 'next_after_sequence', type: 'integer', section: '§4.6' },
  { path: 'has_more', type: 'boolean', section: '§4.6' },
  { path: 'latest_sequence', type: 'integer', section: '§4.6' },
  { path: 'retention_days', type: 'integer', section: '§4.6' },
] as const satisfies readonly FieldRule[];

/** §4.7 Response 202: `data` = `{queued_properties, horizon_days, types}`; types normalised to `.changed`. */
export const SYNC_ACCEPTED_FIELDS = [
  { path: 'queued_properties', type: 'integer', section: '§4.7' },
  { path: 'horizon_days', type: 'integer', section: '§4.7' },
  { path: 'types', type: 'array', items: { type: 'string', allowedValues: SYNC_TYPES_CHANGED }, section: '§4.7' },
] as const satisfies readonly FieldRule[];

/** Where each resource table applies: a success response of an endpoint, at a path prefix. */
export interface ResponseShape {
  readonly endpoint: EndpointKey;
  readonly status: number;
  /** Dotted prefix inside the response body schema (`data.`, `data[].event.`, ``). */
  readonly prefix: string;
  readonly table: string;
  readonly fields: readonly FieldRule[];
}

/** Every (response, table) pair the document states. */
export const RESPONSE_SHAPES: readonly ResponseShape[] = [
  { endpoint: 'GET /me', status: 200, prefix: 'data.', table: 'integration (§2.1)', fields: INTEGRATION_FIELDS },
  ...SINGLE_BOOKING_RESPONSES.map((r) => ({
    endpoint: r.endpoint,
    status: r.status,
    prefix: 'data.',
    table: 'booking (§2.3)',
    // §2.3 "added with value true only on a 200 duplicate response to create": required there, optional elsewhere.
    fields: r.endpoint === 'POST /bookings' && r.status === 200
      ? BOOKING_FIELDS.map((f): FieldRule => (f.path === 'duplicate' ? { ...f, required: true } : f))
      : BOOKING_FIELDS,
  })),
  // §4.4 "data is an array of booking objects; a top-level sibling pagination"
  { endpoint: 'GET /bookings', status: 200, prefix: '', table: 'booking list (§4.4)', fields: [{ path: 'data', type: 'array', section: '§4.4' }] },
  { endpoint: 'GET /bookings', status: 200, prefix: 'data[].', table: 'booking (§2.3)', fields: BOOKING_FIELDS },
  { endpoint: 'GET /bookings', status: 200, prefix: 'pagination.', table: 'pagination (§4.4)', fields: PAGINATION_FIELDS },
  // §4.6 "data is an array of event rows (2.6). Top-level sibling cursor"
  { endpoint: 'GET /events', status: 200, prefix: '', table: 'event replay (§4.6)', fields: [{ path: 'data', type: 'array', section: '§4.6' }] },
  { endpoint: 'GET /events', status: 200, prefix: 'data[].', table: 'event row (§2.6)', fields: EVENT_ROW_FIELDS },
  { endpoint: 'GET /events', status: 200, prefix: 'data[].event.', table: 'event envelope (§2.5)', fields: EVENT_ENVELOPE_FIELDS },
  { endpoint: 'GET /events', status: 200, prefix: 'cursor.', table: 'cursor (§4.6)', fields: CURSOR_FIELDS },
  // §4.7 Response 202
  { endpoint: 'POST /sync', status: 202, prefix: 'data.', table: 'sync accepted (§4.7)', fields: SYNC_ACCEPTED_FIELDS },
  // §4.8 snapshot envelope (2.7) for all three snapshots
  ...SNAPSHOT_ENDPOINTS.map((endpoint) => ({
    endpoint,
    status: 200,
    prefix: 'data.',
    table: 'snapshot envelope (§2.7)',
    fields: SNAPSHOT_FIELDS,
  })),
  {
    endpoint: 'GET /properties/{property}/availability',
    status: 200,
    prefix: 'data.data.',
    table: 'availability payload (§4.8)',
    fields: AVAILABILITY_PAYLOAD_FIELDS,
  },
  {
    endpoint: 'GET /properties/{property}/availability',
    status: 200,
    prefix: 'data.data.dates[].',
    table: 'availability date entry (§2.4)',
    fields: AVAILABILITY_DATE_FIELDS,
  },
  // Property list: paged like GET /bookings (spec convention); record fields not shown (§2.4).
  { endpoint: 'GET /properties', status: 200, prefix: '', table: 'property list (§4.8)', fields: [{ path: 'data', type: 'array', section: '§4.8' }] },
  { endpoint: 'GET /properties', status: 200, prefix: 'pagination.', table: 'pagination (§4.4)', fields: PAGINATION_FIELDS },
];

/**
 * §4.5 rule 7: the 409 UNAVAILABLE body: `errors.availability` =
 * `{property: {doorloom_id}, window: {from, to}, total_units, dates: [availability date entries]}`.
 */
export const UNAVAILABLE_AVAILABILITY_KEYS = [
  'property.doorloom_id',
  'window.from',
  'window.to',
  'total_units',
  'dates',
] as const;

// ---------------------------------------------------------------------------
// Parts 5 and 6: authentication and webhooks
// ---------------------------------------------------------------------------

/** §5 item 1: "Authorization: Bearer <API_KEY>. No other scheme exists." */
export const AUTH = { type: 'http', scheme: 'bearer' } as const;

/** §6 and the spec convention: one webhook per event type, plus `ping` (§6 rule 6). */
export const WEBHOOKS = [...EVENT_TYPES, 'ping'] as const;

/** §2.1, §6 rule 3: "Each webhook carries the header X-Service-Integration whose value is the integration slug." */
export const WEBHOOK_INTEGRATION_HEADER = 'X-Service-Integration';
