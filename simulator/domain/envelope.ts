/** The API's two envelopes (document conventions; §7). */
import type { DomainError } from './errors.ts';

export interface SuccessEnvelope<T> {
  success: true;
  message: string;
  data: T;
  [sibling: string]: unknown;
}

export interface ErrorEnvelope {
  success: false;
  code: string;
  message: string;
  errors: Record<string, unknown>;
}

/** `siblings` are top-level members beside `data` (`pagination` §4.4, `cursor` §4.6). */
export function success<T>(message: string, data: T, siblings: Record<string, unknown> = {}): SuccessEnvelope<T> {
  return { success: true, message, data, ...siblings };
}

export function failure(error: DomainError): ErrorEnvelope {
  return { success: false, code: error.code, message: error.message, errors: error.errors };
}

/** A response as the domain decides it: status, envelope, extra headers. */
export interface Reply {
  status: number;
  body: SuccessEnvelope<unknown> | ErrorEnvelope;
  /** `body` already serialised, when the domain keeps it so (an answer asked for again and again, GET /me). */
  text?: string;
  headers?: Record<string, string>;
}
