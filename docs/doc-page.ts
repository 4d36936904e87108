/**
 * Reading a documentation page (README.md, docs/*.md) the way its tests
 * need it: the fenced code blocks with the `<!-- example: … -->` marker just
 * above them, the command lines of a ```sh block, the flag tables marked
 * `<!-- flags: COMMAND -->`, the route table marked `<!-- routes: staff -->`
 * and the relative links. Plain text in, plain data out: no file or process
 * is touched here.
 */

/** How docs/examples.test.ts treats a block (the marker's word; `run` when there is no marker). */
export type ExampleMode = 'run' | 'background' | 'help' | 'not-run' | 'file';

export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`sh`, `js`, `text`, …); empty when there is none. */
  lang: string;
  body: string;
  mode: ExampleMode;
  /** The marker's reason (required for help, not-run and file). */
  reason: string;
  /** For `file`: the repository file the block must equal. */
  file?: string;
}

const MARKER = /^<!-- example: (background|help|not-run|file)(?: ([^\s—]+))?(?: — (.+?))? -->$/;

/** Every fenced block of the page, with its marker. A malformed marker throws, naming its line. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)/.exec(lines[i]!);
    if (!open) {
      if (lines[i]!.startsWith('<!-- example:') && !MARKER.test(lines[i]!)) throw new Error(`line ${i + 1}: malformed marker ${lines[i]}`);
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
    if (i === lines.length) throw new Error(`line ${start + 1}: unclosed code block`);
    const marker = MARKER.exec(lines[start - 1] ?? '');
    const mode = (marker?.[1] ?? 'run') as ExampleMode;
    const block: CodeBlock = { line: start + 1, lang: open[1] ?? '', body: body.join('\n'), mode, reason: marker?.[3] ?? '' };
    if (mode === 'file') block.file = marker?.[2];
    else if (marker?.[2]) throw new Error(`line ${start}: "${marker[2]}" after ${mode} (only file takes a path)`);
    if (mode !== 'run' && mode !== 'background' && block.reason === '') throw new Error(`line ${start}: the ${mode} marker needs a reason ("— why")`);
    blocks.push(block);
  }
  return blocks;
}

export interface ShellCommand {
  /** 1-based line in the page. */
  line: number;
  /** The command as the page shows it (with its continuation lines), trailing comment removed. */
  text: string;
  /** The exit code the page says it ends with: `→ exit N` in its comment; 0 otherwise. */
  expectedExit: number;
}

/**
 * The command lines of a ```sh block: `\` continuations kept together, comment-only
 * and blank lines left out. A trailing comment is removed (quote-aware) and
 * read for `→ exit N`.
 */
export function shellCommands(body: string, firstLine: number): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = firstLine + i;
    let text = lines[i]!;
    if (text.trim() === '' || text.trim().startsWith('#')) continue;
    // Kept as written: bash reads `\` and a newline as one command going on.
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text}\n${lines[++i]!}`;
    if (/<<-?\s*['"]?\w+/.test(text)) throw new Error(`line ${line}: here-documents are not supported in examples (use printf)`);
    const { command, comment } = splitComment(text);
    const exit = /→ exit (\d+)/.exec(comment);
    commands.push({ line, text: command.trimEnd(), expectedExit: exit ? Number(exit[1]) : 0 });
  }
  return commands;
}

/** The command and its trailing `# comment`: a `#` that starts a word outside quotes. */
export function splitComment(text: string): { command: string; comment: string } {
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
    } else if (c === '\\') {
      i++;
    } else if (quote === '"') {
      if (c === '"') quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      return { command: text.slice(0, i), comment: text.slice(i + 1) };
    }
  }
  return { command: text, comment: '' };
}

/**
 * The flags named in the first cell of each row of the table under
 * `<!-- flags: NAME -->`. Throws when the page has no such table.
 */
export function flagTable(markdown: string, name: string): Set<string> {
  const rows = markedTable(markdown, `<!-- flags: ${name} -->`);
  const flags = new Set<string>();
  for (const row of rows) for (const m of firstCell(row).matchAll(/(?<![\w-])(--?[a-z][a-z0-9-]*)/g)) flags.add(m[1]!);
  return flags;
}

/**
 * `METHOD /path` of each row of the table under `<!-- routes: NAME -->`; a
 * row `POST /a/{id}/archive`, `/unarchive` names two routes.
 */
export function routeTable(markdown: string, name: string): Set<string> {
  const routes = new Set<string>();
  for (const row of markedTable(markdown, `<!-- routes: ${name} -->`)) {
    const cell = firstCell(row);
    const main = /`(GET|POST|PUT|PATCH|DELETE) (\/[^`]*)`/.exec(cell);
    if (!main) continue;
    routes.add(`${main[1]} ${main[2]}`);
    for (const sibling of cell.slice(main.index + main[0].length).matchAll(/`\/([^`/]+)`/g)) routes.add(`${main[1]} ${main[2]!.replace(/[^/]+$/, sibling[1]!)}`);
  }
  return routes;
}

function markedTable(markdown: string, marker: string): string[] {
  const lines = markdown.split('\n');
  const at = lines.findIndex((l) => l.trim() === marker);
  if (at < 0) throw new Error(`no "${marker}" table`);
  const rows: string[] = [];
  for (let i = at + 1; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!);
  if (rows.length < 3) throw new Error(`"${marker}" is not followed by a table`);
  return rows.slice(2); // the header and its rule
}

function firstCell(row: string): string {
  // `\|` is a pipe inside a cell, not a column.
  return row.replace(/\\\|/g, '\u0000').split('|')[1]!.replace(/\u0000/g, '|');
}

export interface Link {
  line: number;
  /** The target as written: `docs/x.md#anchor`, `../spec/openapi.yaml`. */
  target: string;
}

/** Relative links (not http(s), not mailto) outside code blocks. */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (text.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const m of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1]!)) links.push({ line: i + 1, target: m[1]! });
    }
  });
  return links;
}

/** The anchors GitHub makes of the page's headings. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const text of markdown.split('\n')) {
    if (text.startsWith('```')) fenced = !fenced;
    const h = !fenced && /^#{1,6} (.+)$/.exec(text);
    if (!h) continue;
    let base = h[1]!.toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
    if (anchors.has(base)) {
      let n = 1;
      while (anchors.has(`${base}-${n}`)) n++;
      base = `${base}-${n}`;
    }
    anchors.add(base);
  }
  return anchors;
}
