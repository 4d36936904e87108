/**
 * What the partner reports about itself while it works: every API call, every
 * webhook delivery and every decision. A deployment logs these; the scenarios
 * turn them into the timeline. Observers are awaited, so a test can act in the
 * middle of the partner's work (a host changing rates while a snapshot is
 * being downloaded).
 */
export interface ApiCall {
  method: string;
  /** Path and query under the API root. */
  path: string;
  /** HTTP status, or null when no answer came back. */
  status: number | null;
  /** The error envelope's code, when there is one. */
  code?: string;
  /** Why no answer came back. */
  error?: string;
  /** Parsed response body (null for an empty or unparsable body). */
  body: unknown;
  headers: Record<string, string>;
  /** The request body as sent. */
  requestBody?: string;
  idempotencyKey?: string;
}

export interface DeliveryRecord {
  path: string;
  /** `ping`, an event type, or `?` when the body could not be read. */
  type: string;
  sequence: number | null;
  status: number;
  /** `applied 3 nights`, `dropped: not newer`, `refused: signature stale`, ... */
  outcome: string;
  signatureHeader: string | undefined;
  rawBody: string;
}

export interface PartnerObserver {
  call?(call: ApiCall): void | Promise<void>;
  delivery?(delivery: DeliveryRecord): void;
  note?(message: string): void;
}
