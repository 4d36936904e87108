/**
 * The partner's network, with faults a scenario can arm: an answer lost on
 * the way back (the request WAS processed), or the partner process dying
 * right after a request left. Injected as the partner's `fetch`, so nothing
 * is mocked.
 */
export type CallMatch = { method: string; path: RegExp };

/** Thrown into the partner when its process "dies": nothing in the partner catches it. */
export class PartnerCrashed extends Error {
  constructor(what: string) {
    super(`the partner process died right after sending ${what}`);
    this.name = 'PartnerCrashed';
  }
}

export class FaultyNetwork {
  private readonly armed: { match: CallMatch; kind: 'lose-answer' | 'crash' }[] = [];

  /** The next matching request is processed by the platform, but its answer never reaches the partner. */
  loseNextAnswer(match: CallMatch): void {
    this.armed.push({ match, kind: 'lose-answer' });
  }

  /** The partner process dies right after the next matching request left (its answer is never read). */
  crashAfterSending(match: CallMatch): void {
    this.armed.push({ match, kind: 'crash' });
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const i = this.armed.findIndex((a) => a.match.method === method && a.match.path.test(new URL(url).pathname));
    if (i < 0) return res;
    const [fault] = this.armed.splice(i, 1);
    await res.arrayBuffer();
    if (fault!.kind === 'crash') throw new PartnerCrashed(`${method} ${new URL(url).pathname}`);
    throw new TypeError('fetch failed', { cause: new Error('socket hang up (injected: the answer was lost on the way back)') });
  };
}
