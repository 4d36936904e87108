// Test aid (cli/partner-api.test.ts): `node --import ./cli/load-probe.mjs …` says on stderr when the runner or the
// catalogue is loaded, so a test can tell that a command refused before any of the run's code loaded.
import { register } from 'node:module';

register(new URL('./load-probe-hooks.mjs', import.meta.url));
