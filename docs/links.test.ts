/**
 * The pages' relative links lead somewhere: the file exists, and a
 * `#anchor` is a heading of the page it points into. docs/ci.md is written
 * on the CI recipes' branch: until it is in the checkout, links to it are
 * the only ones allowed to wait; once it is, they are checked like the rest.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks } from './doc-page.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const PENDING = new Set(['docs/ci.md']);

describe('relative links', () => {
  it.each(PAGES)('%s: every relative link names a file of the checkout, and an anchor its page has', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const broken: string[] = [];
    for (const { line, target } of relativeLinks(text)) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), path));
      if (!existsSync(join(ROOT, file))) {
        if (!PENDING.has(file)) broken.push(`${page}:${line} ${target}: no ${file}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(join(ROOT, file)).isDirectory() || !file.endsWith('.md')) {
        broken.push(`${page}:${line} ${target}: an anchor into ${file}, which is not a page`);
        continue;
      }
      if (!headingAnchors(readFileSync(join(ROOT, file), 'utf8')).has(anchor)) broken.push(`${page}:${line} ${target}: ${file} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});
