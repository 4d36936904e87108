/**
 * What is wrong with a 409 UNAVAILABLE answer to a create, judged from the
 * request and the answer alone (§4.5 rule 7: errors.availability names the
 * property and the window from check-in to the last night). The suite's
 * booking.conflict-body and watch judge with this same function; the dates
 * (rule 7b, as a snapshot shows them) need a snapshot and stay the suite's.
 */
import { addDays } from './calendar.ts';

export interface ConflictProblem {
  kind: 'ConflictPropertyWrong' | 'ConflictWindowWrong';
  received: string;
  documented: string;
  clause: string;
}

/** The problems of `availability` (the answer's errors.availability) for the create `request`; the property is judged where the request names it by platform id. */
export function conflictBodyProblems(request: any, availability: any): ConflictProblem[] {
  const problems: ConflictProblem[] = [];
  const a = availability ?? {};
  const property = request?.property?.doorloom_id;
  if (Number.isInteger(property) && a.property?.doorloom_id !== property) {
    problems.push({ kind: 'ConflictPropertyWrong', received: JSON.stringify(a.property), documented: `{doorloom_id: ${property}}`, clause: '4.5.R7' });
  }
  const checkIn = request?.check_in;
  const checkOut = request?.check_out;
  if (typeof checkIn === 'string' && typeof checkOut === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(checkOut)) {
    const lastNight = addDays(checkOut, -1);
    if (a.window?.from !== checkIn || a.window?.to !== lastNight) {
      problems.push({ kind: 'ConflictWindowWrong', received: `window ${JSON.stringify(a.window)}`, documented: `{from: ${checkIn}, to: ${lastNight}} (check_out minus one day)`, clause: '4.5.R7a' });
    }
  }
  return problems;
}
