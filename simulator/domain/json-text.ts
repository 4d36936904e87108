/**
 * A request body as JSON text, read for what JSON.parse loses: the text of
 * its numbers. §4.5 rule 1 fingerprints "key-sorted JSON, so key order is
 * irrelevant and any value change counts"; the fingerprint of the parsed
 * value read `1e309` as null, `-0` as 0 and 2^53+1 as 2^53, so a different
 * body replayed the first 201 (issue 17). Here the canonical form is built
 * from the text: keys sorted at every depth (the last of duplicate keys
 * wins, as in JSON.parse), strings normalised, white space dropped, numbers
 * exactly as sent. Two bodies that differ as JSON text other than in key
 * order, white space or string escapes never share it. For the bodies that
 * matter (numbers in their shortest form) it equals key-sorted JSON of the
 * parsed value (stored fingerprints stay comparable; idempotency.ts uses it).
 *
 * It also names the numbers a double cannot hold without changing them
 * (overflow to infinity, a non-zero that underflows to 0, an integer past
 * 2^53 that rounds): stored "verbatim" they would come back changed
 * (§4.5 `pricing.breakdown`), so the HTTP layer refuses them with 422.
 */

export interface UnholdableNumber {
  /** Field path, as §7 `errors` keys it (`pricing.breakdown.x`, `units.0.adults`). */
  path: string;
  text: string;
  reason: string;
}

export interface JsonTextScan {
  canonical: string;
  unholdable: UnholdableNumber[];
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Scans text that JSON.parse has already accepted (anything else throws). */
export function scanJsonText(text: string): JsonTextScan {
  const unholdable: UnholdableNumber[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const stringToken = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return text.slice(start, i);
  };
  const value = (path: string[]): string => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries = new Map<string, string>();
      ws();
      if (text[i] === '}') {
        i++;
        return '{}';
      }
      for (;;) {
        ws();
        const key = JSON.parse(stringToken()) as string;
        ws();
        i++; // colon
        entries.set(key, value([...path, key]));
        ws();
        if (text[i++] === '}') break;
      }
      return `{${[...entries.keys()].sort().map((k) => `${JSON.stringify(k)}:${entries.get(k)}`).join(',')}}`;
    }
    if (c === '[') {
      i++;
      const items: string[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return '[]';
      }
      for (;;) {
        items.push(value([...path, String(items.length)]));
        ws();
        if (text[i++] === ']') break;
      }
      return `[${items.join(',')}]`;
    }
    if (c === '"') return JSON.stringify(JSON.parse(stringToken()));
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return literal;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    // Stryker disable next-line StringLiteral: the text of an error that cannot happen (JSON.parse accepted the body first)
    if (!m) throw new SyntaxError(`not JSON at ${i}`);
    i += m[0].length;
    const reason = unholdableReason(m[0]);
    if (reason) unholdable.push({ path: path.join('.') || '_body', text: m[0], reason });
    return m[0];
  };
  const canonical = value([]);
  return { canonical, unholdable };
}

/** Why a double cannot hold the number this JSON text names without changing it; null when it can. */
function unholdableReason(text: string): string | null {
  const v = Number(text);
  // Stryker disable next-line StringLiteral: message wording: a field error of a 422 is a string, never a text (§7)
  if (!Number.isFinite(v)) return 'it is too large for a number here (it would become infinite)';
  const mantissa = text.replace(/[eE].*$/, '');
  // Stryker disable next-line StringLiteral: message wording: a field error of a 422 is a string, never a text (§7)
  if (v === 0 && /[1-9]/.test(mantissa)) return 'it is too small for a number here (it would become 0)';
  if (/^-?\d+$/.test(text) && !Number.isSafeInteger(v) && BigInt(text) !== BigInt(v)) {
    // Stryker disable next-line StringLiteral: message wording: a field error of a 422 is a string, never a text (§7)
    return `it is an integer past 2^53 that a number here cannot hold exactly (it would become ${BigInt(v)})`;
  }
  return null;
}
