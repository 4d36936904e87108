/**
 * Where completed exchanges wait for the judge: judging runs in batches once
 * the event loop has forwarded what its sockets brought in this turn
 * (setImmediate), so a judgement never sits between bytes read and bytes
 * written. Bounded: past `maxItems` waiting, or `maxBytes` of kept bodies,
 * the batch is judged at once, where the exchange completed — under a load
 * the judge cannot keep up with, forwarding slows to the judge's pace;
 * nothing is ever dropped unjudged.
 */

/** Exchanges waiting at most (a turn of the event loop rarely completes more than a few hundred). */
export const MAX_WAITING = 1_024;
/** Body bytes kept by waiting exchanges at most. */
export const MAX_WAITING_BYTES = 32 * 1024 * 1024;

export class JudgingQueue {
  private waiting: (() => void)[] = [];
  private bytes = 0;
  private scheduled = false;
  /** Failures of a queued task (a bug of watch: the task is its own guard); counted, never thrown into the sockets. */
  failures = 0;

  constructor(private readonly maxItems = MAX_WAITING, private readonly maxBytes = MAX_WAITING_BYTES) {}

  /** Queues `task` (it judges one exchange holding `bytes` of body). */
  push(task: () => void, bytes = 0): void {
    this.waiting.push(task);
    this.bytes += bytes;
    if (this.waiting.length >= this.maxItems || this.bytes >= this.maxBytes) {
      this.flush();
      return;
    }
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  /** Judges everything waiting now, in the order it completed (before a status answer, and on exit). */
  flush(): void {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      this.bytes = 0;
      for (const task of batch) {
        try {
          task();
        } catch {
          this.failures += 1;
        }
      }
    }
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    this.flush();
  };
}
