/**
 * Runs queued full re-syncs in the background, one property per turn of the
 * event loop, so a 500-property sync never blocks requests. Tests call
 * `drain()` to run everything at once.
 */
import type { EventApi } from './domain/event-api.ts';

export class SyncWorker {
  private scheduled = false;

  constructor(private readonly api: EventApi, private readonly schedule: (fn: () => void) => void = (fn) => void setImmediate(fn)) {}

  /** Makes sure queued jobs are being worked on. */
  kick(): void {
    if (this.scheduled || this.api.syncJobs().length === 0) return;
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      const [key] = this.api.syncJobs();
      if (key !== undefined) this.api.syncStep(key);
      this.kick();
    });
  }

  /** Runs every queued job to the end, synchronously. */
  drain(): void {
    for (let key = this.api.syncJobs()[0]; key !== undefined; key = this.api.syncJobs()[0]) {
      while (this.api.syncStep(key));
    }
  }
}
