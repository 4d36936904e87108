import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Waits until a child process prints `ready` (a simulator's "base URL" line) or exits: the event, never a budget of
 * its own, so a slow or loaded machine makes a start slower, not a failure (issue 38). The cap only stops a process
 * that neither starts nor exits from hanging its caller, and is far above any start seen (seconds). True once ready.
 */
export async function whenStarted(child: ChildProcess, output: () => string, ready: RegExp, capMs = 600_000): Promise<boolean> {
  const end = performance.now() + capMs;
  while (!ready.test(output()) && child.exitCode === null && child.signalCode === null && performance.now() < end) await sleep(50);
  return ready.test(output());
}
