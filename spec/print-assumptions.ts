/**
 * `npm run spec:assumptions`: every choice this project made where the API
 * document says "not shown", with the node of spec/openapi.yaml that carries it.
 */
import { assumptionsOf } from './assumptions.ts';

const assumptions = assumptionsOf();
for (const [i, a] of assumptions.entries()) {
  process.stdout.write(`${String(i + 1).padStart(2)}. ${a.pointer}\n    ${a.text}\n\n`);
}
process.stdout.write(`${assumptions.length} assumptions in spec/openapi.yaml\n`);
