/**
 * `npm run build`: the package's JavaScript, types and documents in dist/,
 * laid out as the sources are (dist/spec/openapi.yaml beside
 * dist/spec/contract.js), so every module finds its YAML relative to itself
 * wherever the package is installed. `npm pack` runs it (prepack).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = new URL('../dist/', import.meta.url);
/** Read at run time: the contract, the two other planes (`partner-api spec`), the clause catalogue. */
const DOCUMENTS = ['openapi.yaml', 'staff-openapi.yaml', 'control-openapi.yaml', 'clauses.yaml'];

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (compiled.status !== 0) {
  process.stderr.write('error: tsc -p tsconfig.build.json failed\n');
  process.exit(1);
}
for (const name of DOCUMENTS) copyFileSync(new URL(`../spec/${name}`, import.meta.url), new URL(`spec/${name}`, DIST));
// The JSON Schema of `conformance --config`: read by the runner beside conformance/config-file.js, and by editors.
copyFileSync(new URL('../conformance/config.schema.json', import.meta.url), new URL('conformance/config.schema.json', DIST));
chmodSync(new URL('cli/partner-api.js', DIST), 0o755);
process.stdout.write(`built ${fileURLToPath(DIST)}\n`);
