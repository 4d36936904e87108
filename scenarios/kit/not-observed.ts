/**
 * A wait of a live scenario ran out before what it waited for came (the
 * platform's delivery of every event to the partner, the partner's cursor
 * reaching the platform's latest sequence). Like a Jepsen `:info` it is
 * neither a pass nor a failure (issue 38): on real time a slow platform or a
 * slow machine looks the same as one that never delivers, so the scenario
 * reports "not observed", naming what it waited for and how long.
 */
export class ScenarioNotObserved extends Error {
  override name = 'ScenarioNotObserved';
  constructor(readonly awaited: string, readonly waited: string) {
    super(`not observed: ${awaited}, after ${waited}`);
  }
}
