/**
 * TEST DOUBLE as a process: `tsx certify/partner-double-cli.ts --credentials FILE [--port N] [--breakage NAME]`.
 * Prints `webhook <url>` and `state <url>` once listening; stops on SIGTERM.
 */
import { parseArgs } from 'node:util';
import { BREAKAGES, PartnerDouble, type Breakage } from './partner-double.ts';

const { values } = parseArgs({ options: { credentials: { type: 'string' }, port: { type: 'string', default: '0' }, breakage: { type: 'string' } } });
if (!values.credentials) {
  process.stderr.write('error: --credentials FILE is required\n');
  process.exit(2);
}
if (values.breakage !== undefined && !BREAKAGES.includes(values.breakage as Breakage)) {
  process.stderr.write(`error: --breakage must be one of ${BREAKAGES.join(', ')}\n`);
  process.exit(2);
}
const double = await PartnerDouble.start({ credentialsPath: values.credentials, port: Number(values.port), breakage: (values.breakage as Breakage | undefined) ?? null });
process.stdout.write(`webhook ${double.url}\nstate ${double.stateUrl}\n`);
const stop = () => void double.stop().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
