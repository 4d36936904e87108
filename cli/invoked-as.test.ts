/** The usage names the command as it was run (issue 41 item 9). */
import { describe, expect, it } from 'vitest';
import { invokedAs } from './invoked-as.ts';

describe('invokedAs', () => {
  it.each([
    ['the installed bin', ['node', '/usr/lib/node_modules/x/node_modules/.bin/partner-api', 'certify'], {}, 'partner-api certify'],
    ['the built dispatcher', ['node', '/p/dist/cli/partner-api.js'], {}, 'partner-api certify'],
    ['the clone\'s dispatcher through npm', ['node', '/clone/cli/partner-api.ts'], { npm_lifecycle_event: 'partner-api' }, 'npm run partner-api -- certify'],
    ['the clone\'s npm script', ['node', '/clone/certify/cli.ts'], { npm_lifecycle_event: 'certify' }, 'npm run certify --'],
  ] as const)('%s', (_name, argv, env, want) => {
    expect(invokedAs('certify', 'npm run certify --', argv, env)).toBe(want);
  });
});
