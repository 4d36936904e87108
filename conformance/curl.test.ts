/** The failing request as curl (issue 27 item 5): runnable as printed, credentials only as shell variables. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { curlCommand, failingExchange } from './curl.ts';
import type { Exchange } from './types.ts';

const call = (partial: Partial<Exchange>): Exchange => ({
  n: 1, method: 'GET', url: 'https://staging.example/api/integrations/v1/me', requestHeaders: { Accept: 'application/json' },
  status: 200, responseHeaders: {}, responseBody: '', ms: 3, ...partial,
});

/** The words a POSIX shell makes of `command` (after `curl`), with the variables set as given. */
function words(command: string, env: Record<string, string>): string[] {
  const out = execFileSync('sh', ['-c', `${command.replace(/^curl /, 'printf "%s\\0" ')}`], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

describe('curlCommand', () => {
  it('names the credential by its variable where the report shows <redacted>, and the shell puts the value back', () => {
    const e = call({ method: 'POST', url: 'https://staging.example/api/integrations/v1/bookings', requestHeaders: { Authorization: 'Bearer <redacted>', 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' }, requestBody: '{"notes":"it\'s $HOME"}', credential: 'PARTNER_OTHER_API_KEY' });
    const curl = curlCommand(e);
    expect(curl).toBe([
      "curl -sS -i -X POST 'https://staging.example/api/integrations/v1/bookings' \\",
      '  -H "Authorization: Bearer ${PARTNER_OTHER_API_KEY}" \\',
      "  -H 'Content-Type: application/json' \\",
      "  -H 'Idempotency-Key: k-1' \\",
      `  --data-raw '{"notes":"it'\\''s $HOME"}'`,
    ].join('\n'));
    expect(words(curl, { PARTNER_OTHER_API_KEY: 'dlk_abc' })).toEqual(['-sS', '-i', '-X', 'POST', 'https://staging.example/api/integrations/v1/bookings', '-H', 'Authorization: Bearer dlk_abc', '-H', 'Content-Type: application/json', '-H', 'Idempotency-Key: k-1', '--data-raw', '{"notes":"it\'s $HOME"}']);
  });

  it('puts the variable back in a URL or body that needs single quotes around the rest', () => {
    const e = call({ url: 'https://staging.example/api/integrations/v1/me?api_key=<redacted>&x=$y', credential: 'PARTNER_API_KEY' });
    expect(words(curlCommand(e), { PARTNER_API_KEY: 'dlk_k' })).toEqual(['-sS', '-i', 'https://staging.example/api/integrations/v1/me?api_key=dlk_k&x=$y', '-H', 'Accept: application/json']);
  });

  it('leaves a value redacted only for its shape (a made-up key a check sent) as literal text', () => {
    const curl = curlCommand(call({ requestHeaders: { Authorization: 'Bearer <redacted>' } }));
    expect(curl).toContain("-H 'Authorization: Bearer <redacted>'");
  });

  it('says when the report kept only the start of the body', () => {
    const curl = curlCommand(call({ method: 'POST', requestBody: '{"a":"xxxx… (120 more characters)' }));
    expect(curl.split('\n')[0]).toBe('# the report keeps only the start of this body (120 more characters were sent): the command sends what was kept');
    expect(curl).toContain(`--data-raw '{"a":"xxxx'`);
  });
});

describe('failingExchange', () => {
  const exchanges = [call({ n: 1 }), call({ n: 2 }), call({ n: 3 })];
  it.each([
    ['the call the failure was judged on', { kind: 'K', received: 'r', documented: 'd', clause: '1', exchange: 2 }, 2],
    ['the last call when the failure names none', { kind: 'K', received: 'r', documented: 'd', clause: '1' }, 3],
    ['the last call when the judged one is no longer kept', { kind: 'K', received: 'r', documented: 'd', clause: '1', exchange: 99 }, 3],
  ])('%s', (_name, failure, want) => {
    expect(failingExchange({ failure, exchanges })?.n).toBe(want);
  });
  it('none without calls', () => expect(failingExchange({ exchanges: [] })).toBeUndefined());
});
