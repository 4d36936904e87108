/**
 * "Did you mean …?" for an unknown --check (issue 41 item 9). A check id is
 * `suite.name`, and the commonest slip is not a typo of the whole id but the
 * suite left out or guessed wrong (`missing-key-is-401`,
 * `auth.foreign-property-is-404` for `visibility.foreign-property-is-404`):
 * the whole-id edit distance of cli/nearest-name.ts misses those, so the name
 * after the suite is compared too.
 */
import { didYouMean, nearestName } from '../cli/nearest-name.ts';

/** " (did you mean ID?)" naming the nearest check id, or '' when none is near. */
export function didYouMeanCheck(given: string, ids: readonly string[]): string {
  const whole = didYouMean(given, ids);
  if (whole !== '') return whole;
  const name = (id: string) => id.slice(id.indexOf('.') + 1);
  const byName = nearestName(name(given), ids.map(name));
  const match = byName === undefined ? undefined : ids.find((id) => name(id) === byName);
  return match === undefined || match === given ? '' : ` (did you mean ${match}?)`;
}
