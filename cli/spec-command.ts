/**
 * `partner-api spec [print|path|lint] [NAME|FILE …]`: the OpenAPI documents
 * bundled with the package, found beside this module (never in the working
 * directory): the partner API, the staff plane and the staging control plane.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HELP, parseCommandLine, usageErrorText } from './command-line.ts';
import { didYouMean } from './nearest-name.ts';

/** name → the document, relative to this module (cli/ in a clone, dist/cli/ installed). */
const DOCUMENTS = {
  openapi: { url: new URL('../spec/openapi.yaml', import.meta.url), what: 'the partner API 2026-09' },
  staff: { url: new URL('../spec/staff-openapi.yaml', import.meta.url), what: "the simulator's staff plane" },
  control: { url: new URL('../spec/control-openapi.yaml', import.meta.url), what: 'the staging control plane checks use for platform actions' },
} as const;
type DocumentName = keyof typeof DOCUMENTS;
const NAMES = Object.keys(DOCUMENTS) as DocumentName[];

const USAGE = `Usage: partner-api spec <action> [NAME|FILE ...]

Actions
  print [NAME]          print a bundled document (default openapi) as YAML, or as JSON with --json
  path [NAME]           print the file path of a bundled document (default openapi)
  lint [NAME|FILE ...]  validate documents as OpenAPI 3.1 (schema and every $ref); default: all three bundled
                        exit 0 when all are valid, 1 when one is not

Documents
${NAMES.map((n) => `  ${n.padEnd(10)} ${fileURLToPath(DOCUMENTS[n].url)}  ${DOCUMENTS[n].what}`).join('\n')}

  --json   with print: the document as JSON
  --help   this text
`;

function usageError(message: string): number {
  process.stderr.write(usageErrorText(message, HELP.spec));
  return 2;
}

function documentUrl(name: string | undefined): URL | undefined {
  return NAMES.includes((name ?? 'openapi') as DocumentName) ? DOCUMENTS[(name ?? 'openapi') as DocumentName].url : undefined;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine({ allowPositionals: true, strict: true, options: { json: { type: 'boolean' }, help: { type: 'boolean' } } });
  } catch (e) {
    return usageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [action, ...names] = positionals;
  if (action === undefined) return usageError('name an action: print, path or lint');
  if (values.json && action !== 'print') return usageError('--json goes with print');
  if (action === 'print' || action === 'path') {
    if (names.length > 1) return usageError(`${action} takes one document name, got ${names.length}`);
    const url = documentUrl(names[0]);
    if (!url) return usageError(`unknown document "${names[0]}"${didYouMean(names[0]!, NAMES)} (documents: ${NAMES.join(', ')})`);
    if (action === 'path') process.stdout.write(`${fileURLToPath(url)}\n`);
    else if (values.json) {
      const { parse } = await import('yaml');
      process.stdout.write(`${JSON.stringify(parse(readFileSync(url, 'utf8')), null, 2)}\n`);
    } else process.stdout.write(readFileSync(url, 'utf8'));
    return 0;
  }
  if (action === 'lint') {
    const targets = names.length === 0 ? NAMES.map((n) => fileURLToPath(DOCUMENTS[n].url)) : names.map((n) => (NAMES.includes(n as DocumentName) ? fileURLToPath(documentUrl(n)!) : n));
    const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
    let invalid = 0;
    for (const file of targets) {
      try {
        // A fresh parser per document: swagger-parser keeps the $refs of the last one.
        await new SwaggerParser().validate(file);
        process.stdout.write(`valid    ${file}\n`);
      } catch (e) {
        invalid += 1;
        process.stdout.write(`INVALID  ${file}\n  ${(e as Error).message.split('\n').join('\n  ')}\n`);
      }
    }
    return invalid === 0 ? 0 : 1;
  }
  return usageError(`unknown action "${action}"${didYouMean(action, ['print', 'path', 'lint'])} (actions: print, path, lint)`);
}

process.exitCode = await main();
