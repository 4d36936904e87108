/**
 * The ceiling for GET /me on this machine: a bare node:http server that
 * answers every request with the bytes the simulator answered (status,
 * headers, body), recorded in the JSON file named by its first argument.
 * It prints `listening on PORT` once ready.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: bare-server.ts RESPONSE.json\n');
  process.exit(2);
}
const recorded = JSON.parse(readFileSync(file, 'utf8')) as RecordedResponse;
const body = Buffer.from(recorded.body, 'utf8');
const headers = { ...recorded.headers, 'content-length': String(body.length) };

const server = createServer((req, res) => {
  // Drain the (empty) request body so keep-alive connections carry on.
  req.resume();
  res.writeHead(recorded.status, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on ${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
