/**
 * The word diff of index.html reads the way git diff does (issue 41 item 9):
 * the documented side is the − line, red; the received side the + line,
 * green; the words only in one side are marked in that side's colour.
 */
import { describe, expect, it } from 'vitest';
import { renderHtml } from './html.ts';
import { sampleReport } from './sample-report.ts';

/** The declarations of a CSS rule of the page, by its exact selector. */
function rule(html: string, selector: string): string {
  const at = html.indexOf(`${selector}{`);
  if (at === -1) throw new Error(`no rule ${selector}`);
  return html.slice(at + selector.length + 1, html.indexOf('}', at));
}

describe('the word diff colours', () => {
  const html = renderHtml(sampleReport());

  it('shows the documented side as the − line and the received side as the + line', () => {
    expect(html).toMatch(/class="d-line d-doc"><span class="sign" aria-hidden="true">−<\/span><span class="who">Documented/);
    expect(html).toMatch(/class="d-line d-rec"><span class="sign" aria-hidden="true">\+<\/span><span class="who">Received/);
  });

  it.each([
    ['.d-doc', 'var(--fail-bg)'],
    ['.d-doc .who,.d-doc .sign', 'var(--fail)'],
    ['.diff del', 'var(--fail)'],
    ['.d-rec', 'var(--pass-bg)'],
    ['.d-rec .who,.d-rec .sign', 'var(--pass)'],
    ['.diff ins', 'var(--pass)'],
  ])('%s is coloured with %s (− red, + green)', (selector, colour) => {
    expect(rule(html, selector)).toContain(colour);
  });
});
