/** Replay commands name every credential by the variable that holds it (issue 27 item 5). */
import { describe, expect, it } from 'vitest';
import { credentialWords, replayCommand } from './replay.ts';

describe('replayCommand', () => {
  it('live: the key as --api-key "$PARTNER_API_KEY", flagless credentials as variables the shell insists on', () => {
    expect(replayCommand({ baseUrl: 'https://staging.example/api/integrations/v1', apiKey: 'dlk_x', otherApiKey: 'dlk_y', controlUrl: 'https://staging.example/control', controlToken: 'stf_z', runs: 10 }))
      .toBe('PARTNER_OTHER_API_KEY="${PARTNER_OTHER_API_KEY:?}" npm run conformance -- --target https://staging.example/api/integrations/v1 --api-key "$PARTNER_API_KEY" --control-token "$PARTNER_CONTROL_TOKEN" --control-url https://staging.example/control --runs 10');
  });

  it('in-process: no credential to name (the simulator brings its own)', () => {
    expect(replayCommand({ target: 'in-process', fault: 'unauthenticated-403' })).toBe('npm run conformance -- --fault unauthenticated-403 --enable-faults');
  });

  it('never holds a credential\'s value', () => {
    const words = credentialWords(['apiKey', 'webhookSecret', 'otherApiKey', 'disabledApiKey', 'nonIntegrationToken', 'controlToken']);
    expect(words.flags).toEqual(['--api-key "$PARTNER_API_KEY"', '--webhook-secret "$PARTNER_WEBHOOK_SECRET"', '--control-token "$PARTNER_CONTROL_TOKEN"']);
    expect(words.env).toEqual(['PARTNER_OTHER_API_KEY="${PARTNER_OTHER_API_KEY:?}"', 'PARTNER_DISABLED_API_KEY="${PARTNER_DISABLED_API_KEY:?}"', 'PARTNER_NON_INTEGRATION_TOKEN="${PARTNER_NON_INTEGRATION_TOKEN:?}"']);
  });
});
