import { it } from 'vitest';
import { runConformance } from '/work/main/conformance/runner.ts';
import { serveSimulator } from '/work/main/conformance/served-simulator.ts';
it('measure', async () => {
  for (const cfg of ['partner', 'platform'] as const) {
    const s = await serveSimulator([], { rateLimit: { limit: 200, window_seconds: 2 } });
    const r = await runConformance({ ...s.partner, ...(cfg === 'platform' ? s.platform : {}), allowSync: true, allowBurst: true, runs: 3 });
    console.log(cfg, r.summary.applicable, 'of', r.summary.total, 'failed', r.summary.failed, r.summary.errored, r.results.filter((x) => x.outcome === 'failed' || x.outcome === 'errored').map((x) => x.id + ' ' + (x.failure?.received ?? x.error ?? '').slice(0, 200)));
    await s.close();
  }
}, 900_000);
