/**
 * The package as a user gets it: `npm pack` of this checkout (its prepack
 * builds dist/), then the tarball installed with `--omit=dev` into an empty
 * project under `work`. Used by the install test and the cold-start
 * benchmark.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface InstalledPackage {
  /** The project that installed the tarball (its cwd for the commands). */
  project: string;
  /** `node_modules/.bin/partner-api` of that project. */
  bin: string;
  /** Where the package landed: `node_modules/partner-api-conformance`. */
  packageDir: string;
}

export function run(command: string, args: string[], cwd: string, timeoutMs = 1_200_000): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done) => {
    execFile(command, args, { cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

export async function packAndInstall(work: string): Promise<InstalledPackage> {
  const packed = await run('npm', ['pack', '--pack-destination', work, '--json'], ROOT);
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code}):\n${packed.err}`);
  // The prepack build may print first; npm's report is the last JSON array.
  const tarball = (JSON.parse(packed.out.slice(packed.out.lastIndexOf('\n[') + 1)) as { filename: string }[])[0]!.filename;
  const project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'installs-partner-api', version: '1.0.0', private: true, type: 'module' }, null, 2));
  const install = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', join(work, tarball)], project);
  if (install.code !== 0) throw new Error(`npm install of the tarball failed (exit ${install.code}):\n${install.err}`);
  return { project, bin: join(project, 'node_modules', '.bin', 'partner-api'), packageDir: join(project, 'node_modules', 'partner-api-conformance') };
}
