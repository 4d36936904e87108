/**
 * `npm test`: the type check and the spec checks (`npm run typecheck`,
 * `npm run spec:check`) run beside `vitest run` instead of before it, at a
 * low CPU priority (nice 10): the slowest test files mostly wait on real time, and
 * the checks fill that idle CPU instead of delaying the first test by half a
 * minute. Their output is held and printed when they finish: one line when
 * they pass, everything when they fail. Arguments go to vitest
 * (`npm test -- conformance/`). The exit code is vitest's, or 1 when a check
 * failed. Last, one line: the run's wall time and the CPU time it took, its
 * own and that of every process it and its children waited for (Linux: the
 * children's times in /proc/self/stat), so a figure in the README can be
 * measured by anyone, on any machine, from the run itself.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const niced = spawnSync('nice', ['-n', '10', 'true']).status === 0;
const started = Date.now();

function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    child.stderr?.on('data', (d) => (output += d));
    child.on('error', (e) => resolve({ code: 1, output: `${output}${e.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

async function checks() {
  for (const script of ['typecheck', 'spec:check']) {
    const [command, args] = niced ? ['nice', ['-n', '10', npm, 'run', '--silent', script]] : [npm, ['run', '--silent', script]];
    const done = await run(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (done.code !== 0) return { failed: script, output: done.output };
  }
  return { failed: null, output: '' };
}

const checking = checks().then((result) => {
  const seconds = Math.round((Date.now() - started) / 1000);
  if (result.failed === null) process.stdout.write(`\nnpm test: typecheck and spec:check passed (${seconds} s, beside vitest${niced ? ', niced' : ''})\n\n`);
  else process.stdout.write(`\nnpm test: ${result.failed} FAILED (${seconds} s):\n${result.output}\n`);
  return result;
});
const vitest = await run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
const result = await checking;
if (result.failed !== null) process.stdout.write(`npm test: failed: ${result.failed} (its output is above)\n`);
process.stdout.write(`npm test: ${timing()}\n`);
process.exit(result.failed !== null ? 1 : vitest.code);

/** "5 min 19 s wall, 8.1 CPU-minutes"; the CPU part only where the children's times can be read. */
function timing() {
  const seconds = Math.round((Date.now() - started) / 1000);
  const wall = `${Math.floor(seconds / 60)} min ${seconds % 60} s wall`;
  const cpu = cpuSeconds();
  return cpu === null ? wall : `${wall}, ${(cpu / 60).toFixed(1)} CPU-minutes (this run and every process it waited for)`;
}

function cpuSeconds() {
  try {
    // Fields 14 to 17 after the command's closing parenthesis: utime, stime, cutime, cstime, in clock ticks.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = fields.slice(11, 15).reduce((sum, f) => sum + Number(f), 0);
    const perSecond = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
    return Number.isFinite(ticks) ? ticks / perSecond : null;
  } catch {
    return null;
  }
}
