/**
 * The framework floor for GET /me: Koa 3 + @koa/router + a bearer check and
 * nothing else, answering the bytes the simulator answered (recorded in the
 * JSON file named by the first argument; the key is the second). The issue
 * measured this stack at 0.33 of bare node:http; beside the simulator it
 * shows how much of the gap is the framework and how much the simulator's
 * own work. Prints `listening on PORT` once ready.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import type { RecordedResponse } from './bare-server.ts';

const [file, apiKey] = process.argv.slice(2);
if (!file || !apiKey) {
  process.stderr.write('usage: koa-server.ts RESPONSE.json API_KEY\n');
  process.exit(2);
}
const recorded = JSON.parse(readFileSync(file, 'utf8')) as RecordedResponse;
const expected = `Bearer ${apiKey}`;

const app = new Koa();
const router = new Router({ prefix: '/api/integrations/v1' });
router.get('/me', (ctx) => {
  if (ctx.get('authorization') !== expected) {
    ctx.status = 401;
    ctx.body = { success: false, code: 'UNAUTHENTICATED' };
    return;
  }
  ctx.status = recorded.status;
  for (const [name, value] of Object.entries(recorded.headers)) ctx.set(name, value);
  ctx.body = recorded.body;
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
