/**
 * Raw-body encodings: the same envelope written as JSON that `JSON.stringify`
 * would never produce. A platform's encoder is free to write any of these
 * (insignificant whitespace, `\/`, `\u00e9`-style escapes, `1.0`, another key
 * order); the signature is an HMAC over the bytes as sent (spec
 * ServiceSignatureHeader x-assumption: `"<t>.<raw body>"`), so a receiver
 * that verifies over `JSON.stringify(JSON.parse(body))` refuses the first
 * three, and one that re-serialises in a fixed order (sorted keys, a struct's
 * fields) refuses the fourth. Each encoding parses to exactly the value of
 * the original.
 */

export const RAW_BODY_VARIANTS = ['whitespace', 'escapes', 'decimal-numbers', 'key-order'] as const;
export type RawBodyVariant = (typeof RAW_BODY_VARIANTS)[number];

/** What each variant changes, for the report. */
export const RAW_BODY_DESCRIPTIONS: Record<RawBodyVariant, string> = {
  whitespace: 'indented, with spaces around ":" and "," and CRLF line ends',
  escapes: 'every "/" written as "\\/", every non-ASCII character and the vowels as \\u escapes (\\u00e9, \\u0061)',
  'decimal-numbers': 'whole numbers written with a fraction (7840 as 7840.0)',
  'key-order': 'object keys in reverse order at every depth',
};

interface Style {
  newline: string | null;
  reversed: boolean;
  decimal: boolean;
  escapes: boolean;
}

const STYLES: Record<RawBodyVariant, Style> = {
  whitespace: { newline: '\r\n', reversed: false, decimal: false, escapes: false },
  escapes: { newline: null, reversed: false, decimal: false, escapes: true },
  'decimal-numbers': { newline: null, reversed: false, decimal: true, escapes: false },
  'key-order': { newline: null, reversed: true, decimal: false, escapes: false },
};

/**
 * The body re-encoded in `variant`, or null when the variant cannot differ
 * from the compact form for this body (no number, no key, nothing to escape):
 * a drill never sends a "variant" that is not one.
 */
export function reencode(body: string, variant: RawBodyVariant): string | null {
  const value = JSON.parse(body) as unknown;
  const out = write(value, STYLES[variant], 0);
  return out === JSON.stringify(value) ? null : out;
}

function write(value: unknown, style: Style, depth: number): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return String(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`JSON cannot hold ${value}`);
      return style.decimal && Number.isInteger(value) && Math.abs(value) < 1e15 ? `${value}.0` : JSON.stringify(value);
    case 'string':
      return style.escapes ? escaped(value) : JSON.stringify(value);
    case 'object': {
      const pad = (d: number) => (style.newline === null ? '' : style.newline + '  '.repeat(d));
      const colon = style.newline === null ? ':' : ' : ';
      const comma = style.newline === null ? ',' : ' ,';
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        return `[${value.map((v) => pad(depth + 1) + write(v, style, depth + 1)).join(comma)}${pad(depth)}]`;
      }
      const keys = Object.keys(value);
      if (style.reversed) keys.reverse();
      if (keys.length === 0) return '{}';
      return `{${keys.map((k) => `${pad(depth + 1)}${style.escapes ? escaped(k) : JSON.stringify(k)}${colon}${write((value as Record<string, unknown>)[k], style, depth + 1)}`).join(comma)}${pad(depth)}}`;
    }
    default:
      throw new TypeError(`JSON cannot hold a ${typeof value}`);
  }
}

/** A JSON string with `\/`, and `\uXXXX` for non-ASCII characters and the vowels a, e, o. */
function escaped(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '/') out += '\\/';
    else if (code > 0x7e || 'aeo'.includes(ch)) {
      // Characters above U+FFFF as their UTF-16 surrogate pair, as JSON writes them.
      for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
    } else out += JSON.stringify(ch).slice(1, -1);
  }
  return `${out}"`;
}
