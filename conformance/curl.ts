/**
 * The failing request of a check as a curl command a person can paste
 * (Schemathesis prints one for each finding). Exchanges are recorded with
 * secrets redacted; the command puts the credential back as the shell
 * variable that holds it (`"${PARTNER_API_KEY}"`), never its value.
 */
import type { CheckResult, Exchange } from './types.ts';

const REDACTED = '<redacted>';
/** How conformance/client.ts marks a body it cut before recording it. */
const CUT_BODY = /… \((\d+) more characters\)$/;

/**
 * The exchange a failure was judged on (`failure.exchange`), else the last
 * one the check made; undefined when it made none.
 */
export function failingExchange(r: Pick<CheckResult, 'failure' | 'exchanges'>): Exchange | undefined {
  const judged = r.failure?.exchange;
  return (judged !== undefined ? r.exchanges.find((e) => e.n === judged) : undefined) ?? r.exchanges.at(-1);
}

/**
 * `curl -sS -i -X METHOD 'URL' -H '…' --data-raw '…'`, one option a line.
 * Every `<redacted>` in the request becomes the exchange's credential
 * variable when the client named one; a value redacted only because it is
 * shaped like a key (a made-up key a check sent on purpose) stays as the
 * literal text `<redacted>`, quoted, which a platform refuses like any unknown key.
 */
export function curlCommand(e: Exchange): string {
  const word = (value: string) => shellWords(value, e.credential);
  const lines = [`curl -sS -i${e.method === 'GET' ? '' : ` -X ${e.method}`} ${word(e.url)}`];
  for (const [name, value] of Object.entries(e.requestHeaders)) lines.push(`-H ${word(`${name}: ${value}`)}`);
  const comments: string[] = [];
  if (e.requestBody !== undefined) {
    const cut = CUT_BODY.exec(e.requestBody);
    if (cut) comments.push(`# the report keeps only the start of this body (${cut[1]} more characters were sent): the command sends what was kept`);
    lines.push(`--data-raw ${word(cut ? e.requestBody.slice(0, cut.index) : e.requestBody)}`);
  }
  return [...comments, lines.join(' \\\n  ')].join('\n');
}

/** The curl of a failed or errored check's failing request; undefined when it made no call. */
export function failingCurl(r: Pick<CheckResult, 'failure' | 'exchanges'>): string | undefined {
  const e = failingExchange(r);
  return e === undefined ? undefined : curlCommand(e);
}

/**
 * `value` as one shell word, each `<redacted>` replaced by `"${VARIABLE}"`
 * when one is named: double quotes where the text needs no escaping there,
 * otherwise single-quoted pieces joined to the quoted variable.
 */
function shellWords(value: string, variable: string | undefined): string {
  if (variable === undefined || !value.includes(REDACTED)) return quoted(value);
  const pieces = value.split(REDACTED);
  if (pieces.every((p) => /^[^"$`\\!]*$/.test(p))) return `"${pieces.join(`\${${variable}}`)}"`;
  return pieces.map((p) => (p === '' ? '' : quoted(p))).join(`"\${${variable}}"`);
}

/** A single-quoted shell word; a `'` inside is closed, escaped and reopened. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
