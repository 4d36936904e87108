/**
 * The certifier's identity covers the code that runs: in a clone the
 * TypeScript modules certify's command reaches and the documents they read;
 * in the built layout (dist/certify/cli.js, the package.json two levels up)
 * the .js files, never the .d.ts beside them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { certifierIdentity, identityOf, runningFiles } from './certifier-identity.ts';

const work = mkdtempSync(join(tmpdir(), 'certifier-identity-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** An installed package's layout: package.json at the root, the command in dist/certify/. */
function installedLayout(name: string, files: Record<string, string>): URL {
  const root = join(work, name);
  for (const [path, text] of Object.entries({ 'package.json': JSON.stringify({ name: 'partner-api-conformance', version: '9.8.7' }), ...files })) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return pathToFileURL(join(root, 'dist', 'certify', 'cli.js'));
}

const BUILT = {
  'dist/certify/cli.js': "import { grade } from './grade.js';\nconst { run } = await import('./run.js');\n",
  'dist/certify/grade.js': "export { sign } from '../protocol/signature.js';\nexport const grade = 1;\n",
  'dist/certify/grade.d.ts': 'export declare const grade = 1;\n',
  'dist/certify/run.js': "const SPEC = new URL('../spec/openapi.yaml', import.meta.url);\nexport const run = 1;\n",
  'dist/protocol/signature.js': 'export const sign = 1;\n',
  'dist/spec/openapi.yaml': 'openapi: 3.1.0\n',
  'dist/certify/unused.js': 'export const unused = 1;\n',
};

describe('the certifier identity', () => {
  it('in a clone: the package version and a digest over the TypeScript modules certify reaches, documents included, no tests', () => {
    const id = certifierIdentity();
    expect(id.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(id.sourceDigest).toMatch(/^[0-9a-f]{64}$/);
    const files = runningFiles(new URL('./cli.ts', import.meta.url)).map((u) => u.pathname);
    for (const reached of ['/certify/grade.ts', '/certify/run.ts', '/protocol/signature.ts', '/spec/contract.ts', '/spec/openapi.yaml', '/simulator/simulator.ts']) {
      expect(files.some((f) => f.endsWith(reached)), reached).toBe(true);
    }
    expect(files.filter((f) => f.endsWith('.test.ts'))).toEqual([]);
  });

  it('built: every .js the command reaches (static, re-exported, dynamic) and the documents they read; not the .d.ts, not what nothing imports', () => {
    const entry = installedLayout('built', BUILT);
    const files = runningFiles(entry).map((u) => u.pathname.slice(u.pathname.indexOf('/built/') + '/built/'.length));
    expect(files).toEqual(['dist/certify/cli.js', 'dist/certify/grade.js', 'dist/certify/run.js', 'dist/protocol/signature.js', 'dist/spec/openapi.yaml']);
    expect(identityOf(entry).version).toBe('9.8.7');
  });

  it.each([
    ['a module the command runs', 'dist/protocol/signature.js', 'export const sign = 2;\n', true],
    ['a document a module reads', 'dist/spec/openapi.yaml', 'openapi: 3.1.1\n', true],
    ['a declaration file', 'dist/certify/grade.d.ts', 'export declare const grade = 2;\n', false],
    ['a module nothing imports', 'dist/certify/unused.js', 'export const unused = 2;\n', false],
  ] as const)('changing %s (%s): the digest changes: %s', (_what, path, text, changes) => {
    const before = identityOf(installedLayout(`before-${path.replace(/\W/g, '-')}`, BUILT)).sourceDigest;
    const after = identityOf(installedLayout(`after-${path.replace(/\W/g, '-')}`, { ...BUILT, [path]: text })).sourceDigest;
    expect(after !== before).toBe(changes);
  });
});
