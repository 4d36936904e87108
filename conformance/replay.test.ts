/** Replay commands name every credential by the variable that holds it (issue 27 item 5). */
import { describe, expect, it } from 'vitest';
import { credentialWords, replayCommand } from './replay.ts';

describe('replayCommand', () => {
  it('live: every credential as a variable the shell insists on, before the command (npm echoes a flag expanded)', () => {
    expect(replayCommand({ baseUrl: 'https://staging.example/api/integrations/v1', apiKey: 'dlk_x', otherApiKey: 'dlk_y', controlUrl: 'https://staging.example/control', controlToken: 'stf_z', runs: 10 }))
      .toBe('PARTNER_API_KEY="${PARTNER_API_KEY:?}" PARTNER_OTHER_API_KEY="${PARTNER_OTHER_API_KEY:?}" PARTNER_CONTROL_TOKEN="${PARTNER_CONTROL_TOKEN:?}" npm run conformance -- --target https://staging.example/api/integrations/v1 --control-url https://staging.example/control --runs 10');
  });

  it('in-process: no credential to name (the simulator brings its own)', () => {
    expect(replayCommand({ target: 'in-process', fault: 'unauthenticated-403' })).toBe('npm run conformance -- --fault unauthenticated-403 --enable-faults');
  });

  it('never holds a credential\'s value', () => {
    const words = credentialWords(['apiKey', 'webhookSecret', 'otherApiKey', 'disabledApiKey', 'nonIntegrationToken', 'controlToken']);
    expect(words).toEqual(['PARTNER_API_KEY', 'PARTNER_WEBHOOK_SECRET', 'PARTNER_OTHER_API_KEY', 'PARTNER_DISABLED_API_KEY', 'PARTNER_NON_INTEGRATION_TOKEN', 'PARTNER_CONTROL_TOKEN'].map((v) => `${v}="\${${v}:?}"`));
    expect(words.join(' ')).not.toMatch(/--[a-z-]+ "\$/);
  });
});
