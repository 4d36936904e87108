/**
 * `PARTNER_WEBHOOK_SECRET=whsec_... npm run receiver -- [--port N] [--slug S] [--mode ok|fail|timeout|gone]`:
 * a loopback receiver that prints each delivery; type ok, fail, timeout or
 * gone and Enter to switch how it answers. Exit 2 on a bad flag.
 */
import { HELP, parseCommandLine, usageErrorText } from '../../cli/command-line.ts';
import { invokedAs } from '../../cli/invoked-as.ts';
import { warnSecretFlags } from '../../cli/secret-flags.ts';
import { startReceiver, type ReceiverMode } from './receiver.ts';

const MODES: ReceiverMode[] = ['ok', 'fail', 'timeout', 'gone'];

const USAGE = `Usage: PARTNER_WEBHOOK_SECRET=whsec_... ${invokedAs('receiver', 'npm run receiver --')} [options]

  PARTNER_WEBHOOK_SECRET   the webhook secret to verify signatures with (required, here or as --secret; several,
                           as during a rotation, separated by commas)
  --secret S    a webhook secret (repeatable); on the command line it shows in npm's echo and the shell's history:
                prefer PARTNER_WEBHOOK_SECRET
  --port N      port on 127.0.0.1 (default 4020; 0 picks a free one)
  --slug S      the integration slug deliveries must name (the X-Service-Integration header)
  --mode M      how it answers at first: ${MODES.join(', ')} (default ok); type one + Enter to switch
  --help        this text
`;

function fail(message: string): never {
  process.stderr.write(usageErrorText(message, HELP.receiver));
  process.exit(2);
}

let values;
try {
  values = parseCommandLine({
    options: {
      secret: { type: 'string', multiple: true },
      port: { type: 'string', default: '4020' },
      slug: { type: 'string' },
      mode: { type: 'string', default: 'ok' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  }).values;
} catch (e) {
  fail((e as Error).message);
}
if (values.help) {
  // Help is a good command line too: the secret given on it is said to leak, as on a run.
  warnSecretFlags('receiver', values);
  process.stdout.write(USAGE);
  process.exit(0);
}
// The environment is the way that leaks nothing (npm echoes a command line); a flag, when given, wins.
const secrets = values.secret ?? (process.env.PARTNER_WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
if (secrets.length === 0) fail('PARTNER_WEBHOOK_SECRET=whsec_... is required (or --secret; several separated by commas, as during a rotation)');
if (!MODES.includes(values.mode as ReceiverMode)) fail(`--mode must be one of ${MODES.join(', ')}, got "${values.mode}"`);
// Digits only: Number() would read "" as 0 (a random port) and "0x10" as 16.
const port = /^[0-9]{1,5}$/.test(values.port) ? Number(values.port) : NaN;
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be an integer from 0 to 65535, got "${values.port}"`);
// Once the command line is known good: a misuse gets its one error line first, not a warning above it.
warnSecretFlags('receiver', values);
const receiver = await startReceiver({
  secrets,
  slug: values.slug,
  port,
  mode: values.mode as ReceiverMode,
  onDelivery: (d) => {
    const check = d.problems.length === 0 ? 'signature ok' : d.problems.map((p) => p.detail).join('; ');
    process.stdout.write(`${new Date().toISOString()}  ${d.type.padEnd(22)} seq ${String(d.sequence ?? '-').padStart(6)}  ${check}  → ${d.answered ?? 'no answer'}\n`);
  },
}).catch((e: NodeJS.ErrnoException) => fail(e.code === 'EADDRINUSE' ? `--port ${port} is already in use (try --port 0)` : e.message));
process.stdout.write(`receiving on ${receiver.url} (mode ${values.mode}); type ${MODES.join(' / ')} + Enter to switch\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  const mode = line.trim() as ReceiverMode;
  if (MODES.includes(mode)) {
    receiver.setMode(mode);
    process.stdout.write(`mode: ${mode}\n`);
  }
});
