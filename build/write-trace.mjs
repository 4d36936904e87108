/**
 * Preloaded into every Node process of a test run (NODE_OPTIONS=--import=…,
 * set by build/write-trace.ts): records each path inside the work tree that
 * this process creates, writes, renames, removes or changes the mode of, one
 * line per path relative to the work tree, appended to the trace file. The
 * work-tree guard judges only what is recorded here, so a file a person
 * writes into the clone while `npm test` runs is not blamed on the tests.
 *
 * Plain JavaScript, no dependencies: it loads in processes that have no tsx
 * (npm, the installed package's command). A path counts when it resolves
 * into the work tree, through symbolic links too (the docs examples run in
 * temporary directories whose sources are links into the clone).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TRACE = process.env.WORK_TREE_WRITE_TRACE;
const ROOT = process.env.WORK_TREE_WRITE_TRACE_ROOT;

if (TRACE && ROOT && !globalThis.__workTreeWriteTrace) {
  globalThis.__workTreeWriteTrace = true;
  const original = {
    appendFileSync: fs.appendFileSync,
    existsSync: fs.existsSync,
    realpathSync: fs.realpathSync.native,
  };
  const recorded = new Set();

  /** The path as a string, or null for a descriptor or a FileHandle (opened, and recorded, by a traced open). */
  const pathOf = (p) => {
    if (typeof p === 'string') return p;
    if (Buffer.isBuffer(p)) return p.toString();
    if (p instanceof URL) return p.protocol === 'file:' ? fileURLToPath(p) : null;
    return null;
  };

  /** The path with its directory's symbolic links resolved (the last component itself is not followed: removing a link removes the link). */
  const real = (absolute) => {
    let dir = dirname(absolute);
    const rest = [basename(absolute)];
    while (!original.existsSync(dir)) {
      if (dirname(dir) === dir) return absolute;
      rest.unshift(basename(dir));
      dir = dirname(dir);
    }
    try {
      return resolve(original.realpathSync(dir), ...rest);
    } catch {
      return absolute;
    }
  };

  const inRoot = (absolute) => absolute === ROOT || absolute.startsWith(ROOT + sep);

  const record = (p) => {
    const path = pathOf(p);
    if (path === null) return;
    const absolute = resolve(path);
    const target = inRoot(absolute) ? absolute : real(absolute);
    if (!inRoot(target)) return;
    const line = relative(ROOT, target) || '.';
    if (recorded.has(line)) return;
    recorded.add(line);
    try {
      original.appendFileSync(TRACE, `${line}\n`);
    } catch {
      // The run is over (the trace file removed): nothing left to judge.
    }
  };

  /** mkdir creates the first missing ancestor and what is below it: recording that one covers them all. */
  const recordMissing = (p) => {
    const path = pathOf(p);
    if (path === null) return;
    let top = resolve(path);
    if (original.existsSync(top)) return;
    while (dirname(top) !== top && !original.existsSync(dirname(top))) top = dirname(top);
    record(top);
  };

  const WRITE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_APPEND;
  const writes = (flags) => (typeof flags === 'number' ? (flags & WRITE_FLAGS) !== 0 : typeof flags === 'string' && /[wa+]/.test(flags));

  /** Wraps `name` on each of the objects, calling `before(args)` first. */
  const wrap = (objects, name, before) => {
    for (const object of objects) {
      const fn = object[name];
      if (typeof fn !== 'function') continue;
      object[name] = function traced(...args) {
        before(args);
        return fn.apply(this, args);
      };
    }
  };

  const sync = (name) => [`${name}`, `${name}Sync`];
  const both = [fs, fs.promises];
  for (const name of ['writeFile', 'appendFile', 'truncate', 'unlink', 'rmdir', 'rm', 'chmod', 'lchmod']) {
    wrap([fs], `${name}Sync`, (a) => record(a[0]));
    wrap(both, name, (a) => record(a[0]));
  }
  for (const name of ['copyFile', 'cp', 'symlink', 'link']) {
    wrap([fs], `${name}Sync`, (a) => record(a[1]));
    wrap(both, name, (a) => record(a[1]));
  }
  for (const name of sync('rename')) wrap([fs], name, (a) => (record(a[0]), record(a[1])));
  wrap([fs.promises], 'rename', (a) => (record(a[0]), record(a[1])));
  for (const name of sync('open')) wrap([fs], name, (a) => writes(a[1]) && record(a[0]));
  wrap([fs.promises], 'open', (a) => writes(a[1]) && record(a[0]));
  wrap([fs], 'createWriteStream', (a) => record(a[0]));
  for (const name of sync('mkdir')) wrap([fs], name, (a) => recordMissing(a[0]));
  wrap([fs.promises], 'mkdir', (a) => recordMissing(a[0]));
  // mkdtemp's directory is known only once made.
  const made = fs.mkdtempSync;
  fs.mkdtempSync = function traced(...args) {
    const dir = made.apply(this, args);
    record(dir);
    return dir;
  };
  const madeLater = fs.promises.mkdtemp;
  fs.promises.mkdtemp = async function traced(...args) {
    const dir = await madeLater.apply(this, args);
    record(dir);
    return dir;
  };
  // `import { writeFileSync } from 'node:fs'` binds to the module's exports: bring those up to date too.
  syncBuiltinESMExports();
}
