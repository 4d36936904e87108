/**
 * `partner-api watch` / `npm run watch --`: the only file of watch/ that
 * touches the process (its arguments, environment, signals, exit code).
 * SIGINT or SIGTERM ends a live watch: the reports are written, then it exits.
 */
import { runWatch } from './command.ts';

let stop!: () => void;
const stopped = new Promise<void>((resolve) => (stop = resolve));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop());

process.exitCode = await runWatch(process.argv.slice(2), {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  env: process.env,
  stopped,
});
// Nothing else may keep a finished watch alive (an idle keep-alive socket of the upstream agent).
process.exit();
