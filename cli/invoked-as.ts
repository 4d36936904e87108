/**
 * How the person ran a command, so its usage names it that way (issue 41
 * item 9): `partner-api certify` when the package's bin started it, `npm run
 * partner-api -- certify` through the clone's dispatcher, `npm run certify
 * --` otherwise. Read from what started the process, never guessed per tool.
 */
import { basename } from 'node:path';

export function invokedAs(command: string, clone: string, argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string {
  const viaDispatcher = /^partner-api(\.[cm]?[jt]s)?$/.test(basename(argv[1] ?? ''));
  if (viaDispatcher) return env.npm_lifecycle_event === 'partner-api' ? `npm run partner-api -- ${command}` : `partner-api ${command}`;
  return clone;
}
