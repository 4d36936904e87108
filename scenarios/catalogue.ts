/** Every scenario, in the order. The CLI and the tests read this list. */
import type { ScenarioDefinition } from './kit/scenario.ts';
import { scenario as happyPath } from './happy-path.ts';
import { scenario as webhookOutage } from './webhook-outage.ts';
import { scenario as beyondRetention } from './beyond-retention.ts';
import { scenario as autoPause } from './auto-pause.ts';
import { scenario as endpointGone } from './endpoint-gone.ts';
import { scenario as secretRotation } from './secret-rotation.ts';
import { scenario as apiKeyRotation } from './api-key-rotation.ts';
import { scenario as supersession } from './supersession.ts';
import { scenario as driftedProperty } from './drifted-property.ts';
import { scenario as overbookingRace } from './overbooking-race.ts';
import { scenario as newProperty } from './new-property.ts';

export const SCENARIOS: ScenarioDefinition[] = [
  happyPath, webhookOutage, beyondRetention, autoPause, endpointGone, secretRotation,
  apiKeyRotation, supersession, driftedProperty, overbookingRace, newProperty,
];

/** A scenario by name or number. */
export function findScenario(ref: string): ScenarioDefinition | undefined {
  return SCENARIOS.find((s) => s.name === ref || String(s.number) === ref);
}
