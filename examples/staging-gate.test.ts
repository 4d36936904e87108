// A platform team's CI gate: API 2026-09 conformance of a deployment, as a vitest test.
// Run it with: API_ROOT=https://staging.example.com/api/integrations/v1 PARTNER_API_KEY=dlk_… PARTNER_PROPERTY=4711 \
//   npx vitest run --config examples/vitest.config.ts
import { it } from 'vitest';
import { assertConformance } from '../conformance/runner.ts';

it('staging conforms to API 2026-09', async () => {
  const { API_ROOT, PARTNER_API_KEY, PARTNER_PROPERTY } = process.env;
  // No fallback: an unset variable must never quietly test something else.
  if (!API_ROOT || !PARTNER_API_KEY || !PARTNER_PROPERTY) {
    throw new Error('set API_ROOT (the deployment\'s …/api/integrations/v1), PARTNER_API_KEY and PARTNER_PROPERTY (a covered property to book on)');
  }
  await assertConformance({
    baseUrl: API_ROOT,
    apiKey: PARTNER_API_KEY,
    properties: [Number(PARTNER_PROPERTY)],
    allowWrites: true, // books a few far-future stays on that property (see "What a live run leaves behind")
    normativeOnly: true,
    // Fails the gate when too little could be checked, not only when something broke.
    requireApplicable: 20,
  });
}, 1_800_000);
