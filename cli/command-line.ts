/**
 * What every command line of the package shares: parsing with node's
 * `parseArgs` (strict), its errors said in our words with the nearest known
 * flag ("unknown option --targt (did you mean --target?)"), and the short
 * pointer to `--help` a usage error ends with instead of the whole usage
 * table. Each CLI prints `error: …` and the pointer, and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from './nearest-name.ts';

/** A misused command line: the message names the flag; the CLI prints it with its pointer and exits 2. */
export class UsageError extends Error {}

/** How a person asks a command for its options, installed and in a clone. */
export interface HelpPointer {
  installed: string;
  clone: string;
}

export const HELP: Record<'partner-api' | 'sim' | 'conformance' | 'certify' | 'scenario' | 'receiver' | 'watch' | 'spec' | 'reference-partner', HelpPointer> = {
  'partner-api': { installed: 'partner-api --help', clone: 'npm run partner-api -- --help' },
  sim: { installed: 'partner-api sim --help', clone: 'npm start -- --help' },
  conformance: { installed: 'partner-api conformance --help', clone: 'npm run conformance -- --help' },
  certify: { installed: 'partner-api certify --help', clone: 'npm run certify -- --help' },
  scenario: { installed: 'partner-api scenario --help', clone: 'npm run scenario -- --help' },
  receiver: { installed: 'partner-api receiver --help', clone: 'npm run receiver -- --help' },
  watch: { installed: 'partner-api watch --help', clone: 'npm run watch -- --help' },
  spec: { installed: 'partner-api spec --help', clone: 'npm run partner-api -- spec --help' },
  'reference-partner': { installed: 'node node_modules/partner-api-conformance/dist/certify/reference-partner-cli.js --help', clone: 'npx tsx certify/reference-partner-cli.ts --help' },
};

/**
 * Whether this code runs from the installed package (`node_modules/partner-api-conformance/dist/…`) rather than
 * from a clone's sources (or the clone's test build), so that a command a run prints for the user to paste is
 * the one that works where the user is.
 */
export const RUNS_INSTALLED = /[/\\]node_modules[/\\]partner-api-conformance[/\\]/.test(decodeURIComponent(new URL(import.meta.url).pathname));

/** The words that start a command where the user is: `npm run watch --` in a clone, `npx partner-api watch` installed. */
export function commandWords(command: 'conformance' | 'certify' | 'scenario' | 'receiver' | 'watch', installed = RUNS_INSTALLED): string {
  return installed ? `npx partner-api ${command}` : `npm run ${command} --`;
}

/** The line a usage error ends with: where the options are, not the options. */
export function usagePointer(help: HelpPointer): string {
  return `(${help.installed} lists the options; in a clone: ${help.clone})`;
}

/** `error: MESSAGE` and the pointer, as every CLI prints a usage error on stderr. */
export function usageErrorText(message: string, help: HelpPointer): string {
  return `error: ${message}\n${usagePointer(help)}\n`;
}

/** node's parseArgs (give it `strict: true`), with its errors turned into UsageErrors that name the flag and the nearest known one. */
export function parseCommandLine<T extends ParseArgsConfig & { strict: true }>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    throw new UsageError(explain(e as Error & { code?: string }, Object.keys(config.options ?? {})));
  }
}

/** parseArgs' own message (written for programmers: "place it at the end of the command after the '--' separator") in a user's words. */
function explain(e: Error & { code?: string }, names: string[]): string {
  const flags = names.map((n) => `--${n}`);
  const quoted = /'([^']+)'/.exec(e.message)?.[1] ?? '';
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const flag = quoted.split('=')[0]!;
      return `unknown option ${flag}${flag.startsWith('--') ? didYouMean(flag, flags) : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      // "Option '-p, --port <value>' argument missing", "… does not take an argument", "… argument is ambiguous".
      const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
      if (/does not take an argument/.test(e.message)) return `${flag} takes no value`;
      if (/ambiguous/.test(e.message)) return `${flag} needs a value, and the next word starts with a dash (write ${flag}=VALUE if that is the value)`;
      return `${flag} needs a value`;
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument "${quoted}" (options start with --)`;
    default:
      return e.message;
  }
}
