/**
 * Where completed exchanges wait for the judge: judging runs in batches, a
 * few milliseconds after the first exchange of a batch completed, so a
 * judgement never sits between bytes read and bytes written, and the judge
 * runs over many exchanges at once with its code and data warm (per
 * `GET /me`, watch spent about 15% less CPU than judging each turn of
 * the event loop's few). Bounded: past `maxItems` waiting, or `maxBytes` of
 * kept bodies, the batch is judged at once, where the exchange completed —
 * under a load the judge cannot keep up with, forwarding slows to the
 * judge's pace; nothing is ever dropped unjudged.
 */

/** How long the first exchange of a batch waits for the judge. */
export const JUDGING_DELAY_MS = 5;
/** Exchanges waiting at most (at 10,000 exchanges a second, a batch is about 50). */
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
      setTimeout(this.drain, JUDGING_DELAY_MS);
    }
  }

  /** Judges everything waiting now, in the order it completed (at the batch's time, before a status answer, on exit). */
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
