#!/usr/bin/env node
/**
 * `partner-api <command> [flags]`: the package's one command. Each
 * subcommand is the CLI a clone runs through npm (`npm start`, `npm run
 * conformance`, …), loaded only when named, so `sim` starts without the
 * conformance runner and its libraries. Exit 2 on a usage error.
 */
import { createRequire } from 'node:module';
import { HELP, usageErrorText } from './command-line.ts';
import { didYouMean } from './nearest-name.ts';

const COMMANDS = {
  sim: 'the contract simulator (what `npm start` runs in a clone)',
  conformance: 'run the conformance suite against the simulator or a deployment',
  certify: "certify a partner's integration, or verify a certificate",
  scenario: 'run the end-to-end scenarios with the reference partner',
  receiver: 'a loopback webhook receiver that prints each delivery',
  watch: 'judge real traffic (a proxy in front of the API and the webhook, or HAR/JSONL recordings)',
  spec: 'print, locate or lint the bundled OpenAPI documents',
} as const;
type Command = keyof typeof COMMANDS;

const USAGE = `Usage: partner-api <command> [options]   (partner-api <command> --help for its options)

Commands
${Object.entries(COMMANDS).map(([name, what]) => `  ${name.padEnd(12)} ${what}`).join('\n')}

  --version    print the package version
  --help       this text
`;

async function run(command: Command): Promise<void> {
  // Each module reads process.argv and exits the process itself (only CLIs exit).
  switch (command) {
    case 'sim': await import('../simulator/cli.ts'); break;
    case 'conformance': await import('../conformance/cli.ts'); break;
    case 'certify': await import('../certify/cli.ts'); break;
    case 'scenario': await import('../scenarios/cli.ts'); break;
    case 'receiver': await import('../simulator/webhooks/receiver-cli.ts'); break;
    case 'watch': await import('../watch/cli.ts'); break;
    case 'spec': await import('./spec-command.ts'); break;
  }
}

const [first, ...rest] = process.argv.slice(2);
if (first === undefined) {
  process.stderr.write(`error: name a command\n\n${USAGE}`);
  process.exitCode = 2;
} else if (first === '--help' || first === '-h' || first === 'help') {
  process.stdout.write(USAGE);
} else if (first === '--version') {
  // package.json is two levels up from dist/cli/ (installed) and one from cli/ (a clone).
  const require = createRequire(import.meta.url);
  const version = ((): string => {
    for (const path of ['../package.json', '../../package.json']) {
      try {
        const pkg = require(path) as { name?: string; version?: string };
        if (pkg.name === 'partner-api-conformance' && pkg.version) return pkg.version;
      } catch {
        // Not at this level.
      }
    }
    return 'unknown';
  })();
  process.stdout.write(`${version}\n`);
} else if (!(first in COMMANDS)) {
  const message = first.startsWith('-') ? `unknown option "${first}" (name a command first)` : `unknown command "${first}"${didYouMean(first, Object.keys(COMMANDS))}`;
  process.stderr.write(usageErrorText(message, HELP['partner-api']));
  process.exitCode = 2;
} else {
  // The subcommand's own parser sees its flags where it expects them: process.argv.slice(2).
  process.argv.splice(2, 1);
  await run(first as Command);
}
