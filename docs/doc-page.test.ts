/**
 * How the docs tests read a page: markers, command lines, flag and route
 * tables, anchors. Example tests on the edge cases the pages have.
 */
import { describe, expect, it } from 'vitest';
import { codeBlocks, flagTable, headingAnchors, relativeLinks, routeTable, shellCommands, splitComment } from './doc-page.ts';
import { planPage, withPorts } from './example-steps.ts';

describe('code blocks and their markers', () => {
  it('reads the marker on the line above a block, and a block without one is run', () => {
    const page = ['<!-- example: help — takes long -->', '```sh', 'npm run bench', '```', '', '```text', 'output', '```'].join('\n');
    expect(codeBlocks(page)).toEqual([
      { line: 2, lang: 'sh', body: 'npm run bench', mode: 'help', reason: 'takes long' },
      { line: 6, lang: 'text', body: 'output', mode: 'run', reason: '' },
    ]);
  });

  it('a marker that skips a block must say why; a malformed one is refused', () => {
    expect(() => codeBlocks('<!-- example: not-run -->\n```sh\nnpm test\n```')).toThrow(/needs a reason/);
    expect(() => codeBlocks('<!-- example: skip — why -->\n```sh\nnpm test\n```')).toThrow(/malformed marker/);
  });

  it('the file marker names the repository file', () => {
    expect(codeBlocks('<!-- example: file examples/a.ts — run by b.test.ts -->\n```ts\nx\n```')[0]).toMatchObject({ mode: 'file', file: 'examples/a.ts', reason: 'run by b.test.ts' });
  });
});

describe('command lines', () => {
  it('keeps continuation lines together, leaves out comments, reads → exit N', () => {
    const body = ['# a comment line', 'npm run x -- --a \\', '  --b   # one command → exit 2', '', 'KEY=$(node -p "1 # not a comment")'].join('\n');
    expect(shellCommands(body, 10)).toEqual([
      { line: 11, text: 'npm run x -- --a \\\n  --b', expectedExit: 2 },
      { line: 14, text: 'KEY=$(node -p "1 # not a comment")', expectedExit: 0 },
    ]);
  });

  it('a # inside quotes or inside a word is not a comment', () => {
    expect(splitComment(`echo '# no' "# no" a#b # yes`)).toEqual({ command: `echo '# no' "# no" a#b `, comment: ' yes' });
  });

  it('refuses here-documents', () => {
    expect(() => shellCommands('cat > f <<EOF\nx\nEOF', 1)).toThrow(/here-documents/);
  });
});

describe('tables', () => {
  const page = [
    '<!-- flags: sim -->',
    '| flag | what |',
    '|---|---|',
    '| `--port N` | the port |',
    '| `--api-key KEY`, `--webhook-secret S` | two flags in one row |',
    '| `--mode ok\\|fail` | a pipe inside a cell |',
    '',
    '<!-- routes: staff -->',
    '| method and path | what |',
    '|---|---|',
    '| `POST /properties/{id}/archive`, `/unarchive` | two routes |',
    '| `GET /world` | |',
  ].join('\n');

  it('reads every flag of the first cells', () => {
    expect([...flagTable(page, 'sim')].sort()).toEqual(['--api-key', '--mode', '--port', '--webhook-secret']);
    expect(() => flagTable(page, 'certify')).toThrow(/no "<!-- flags: certify -->" table/);
  });

  it('reads a row with a sibling path as two routes', () => {
    expect([...routeTable(page, 'staff')].sort()).toEqual(['GET /world', 'POST /properties/{id}/archive', 'POST /properties/{id}/unarchive']);
  });
});

describe('links and anchors', () => {
  it('makes anchors as GitHub does, and finds relative links outside code', () => {
    expect([...headingAnchors('# The `partner-api spec` command\n## 5. The certificate\n## Mutation testing: proof')]).toEqual(['the-partner-api-spec-command', '5-the-certificate', 'mutation-testing-proof']);
    expect(relativeLinks('[a](docs/x.md#y) [b](https://e.org) `[c](no.md)`\n```\n[d](no.md)\n```').map((l) => l.target)).toEqual(['docs/x.md#y']);
  });
});

describe('the plan of a page', () => {
  const ports = new Map([[4010, 51000], [4020, 52000]]);

  it('replaces whole port numbers only, and gives a started simulator the port its page uses', () => {
    expect(withPorts('http://127.0.0.1:4010/x --port 40100 24010', ports)).toBe('http://127.0.0.1:51000/x --port 40100 24010');
    const plan = planPage(codeBlocks('<!-- example: background -->\n```sh\nnpm start -- --memory\n```'), ports);
    expect(plan.steps).toEqual([{ kind: 'background', line: 3, shown: 'npm start -- --memory', command: 'npm start -- --memory --port 51000', expectedExit: 0, ready: '^  base URL +http', ends: 'server' }]);
  });

  it('runs a help block with --help after the script\'s --', () => {
    const plan = planPage(codeBlocks('<!-- example: help — long -->\n```sh\nnpm run bench\nnpm run bench -- --quick\n```'), ports);
    expect(plan.steps.map((s) => s.command)).toEqual(['npm run bench -- --help', 'npm run bench -- --quick --help']);
  });

  it('refuses a block it cannot place: an unknown language, a js block no command runs, a background command with no readiness rule', () => {
    expect(() => planPage(codeBlocks('```ruby\nputs 1\n```'), ports)).toThrow(/not "ruby"/);
    expect(() => planPage(codeBlocks('```python\nprint(1)\n```'), ports)).toThrow(/a python block starts with "# NAME\.py"/);
    expect(() => planPage(codeBlocks('```python\n# a.py\nprint(1)\n```'), ports)).toThrow(/a\.py is written but no command of the page runs it/);
    expect(() => planPage(codeBlocks('```js\n// a.mjs\n```'), ports)).toThrow(/a.mjs is written but no command of the page runs it/);
    expect(() => planPage(codeBlocks('<!-- example: background -->\n```sh\nsleep 100\n```'), ports)).toThrow(/no rule says when/);
    expect(() => planPage(codeBlocks('```sh\nX=1; curl -s http://127.0.0.1:4010/x\n```'), ports)).toThrow(/curl needs --fail-with-body/);
  });
});
