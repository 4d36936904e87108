/**
 * `npm run receiver -- --secret whsec_... [--port N] [--slug S] [--mode ok|fail|timeout|gone]`:
 * a loopback receiver that prints each delivery; type ok, fail, timeout or
 * gone and Enter to switch how it answers.
 */
import { parseArgs } from 'node:util';
import { startReceiver, type ReceiverMode } from './receiver.ts';

const MODES: ReceiverMode[] = ['ok', 'fail', 'timeout', 'gone'];

const { values } = parseArgs({
  options: {
    secret: { type: 'string', multiple: true },
    port: { type: 'string', default: '4020' },
    slug: { type: 'string' },
    mode: { type: 'string', default: 'ok' },
  },
});
if (!values.secret?.length) {
  process.stderr.write('error: --secret whsec_... is required (repeat it to accept several)\n');
  process.exit(2);
}
if (!MODES.includes(values.mode as ReceiverMode)) {
  process.stderr.write(`error: --mode must be one of ${MODES.join(', ')}\n`);
  process.exit(2);
}
const receiver = await startReceiver({
  secrets: values.secret,
  slug: values.slug,
  port: Number(values.port),
  mode: values.mode as ReceiverMode,
  onDelivery: (d) => {
    const check = d.problems.length === 0 ? 'signature ok' : d.problems.map((p) => p.detail).join('; ');
    process.stdout.write(`${new Date().toISOString()}  ${d.type.padEnd(22)} seq ${String(d.sequence ?? '-').padStart(6)}  ${check}  → ${d.answered ?? 'no answer'}\n`);
  },
});
process.stdout.write(`receiving on ${receiver.url} (mode ${values.mode}); type ${MODES.join(' / ')} + Enter to switch\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', (line: string) => {
  const mode = line.trim() as ReceiverMode;
  if (MODES.includes(mode)) {
    receiver.setMode(mode);
    process.stdout.write(`mode: ${mode}\n`);
  }
});
