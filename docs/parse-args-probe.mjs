/**
 * Loaded with `node --import` before a CLI module: the CLI's first
 * `parseArgs` call prints the option table it was given (its real flags,
 * as `--name` and `-x`) as one JSON line and exits 0, before the CLI does
 * anything else. docs/flags.test.ts compares it with the command's page.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const util = createRequire(import.meta.url)('node:util');
util.parseArgs = (config) => {
  const flags = [];
  for (const [name, option] of Object.entries(config?.options ?? {})) {
    flags.push(`--${name}`);
    if (option.short) flags.push(`-${option.short}`);
  }
  process.stdout.write(`parse-args-probe ${JSON.stringify(flags)}\n`);
  process.exit(0);
};
// `import { parseArgs } from 'node:util'` in the CLI sees the replacement too.
syncBuiltinESMExports();
