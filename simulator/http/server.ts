/**
 * The listening server of a simulator (the CLI's and `startSimulator()`'s):
 * Koa's callback behind Node's HTTP server with the time limits of
 * server-timeouts.ts and the error envelope for what Node's parser refuses
 * (node-refusals.ts). One place, so both ways of starting serve alike.
 */
import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import { applyTimeouts, keepAliveUnannounced, SERVER_TIMEOUTS, type ServerTimeouts } from './server-timeouts.ts';
import { answerNodeRefusals } from './node-refusals.ts';

export function createSimulatorServer(app: Koa, timeouts: ServerTimeouts = SERVER_TIMEOUTS): Server {
  const serve = app.callback();
  return answerNodeRefusals(applyTimeouts(createServer((req, res) => {
    keepAliveUnannounced(req, res);
    return serve(req, res);
  }), timeouts));
}
