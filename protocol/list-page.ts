/**
 * What is wrong with one page of GET /bookings, judged from the query and the
 * answer alone (§4.4, §8): `pagination` echoes page and per_page (1 and 50
 * when omitted), the page holds as many bookings as page, per_page and total
 * leave for it, and last_page is ceil(total / per_page). The suite's
 * pagination.per-page-limits and watch judge with this same function.
 */

/** §4.4 and §8: the values used when the query leaves them out. */
export const LIST_DEFAULTS = { page: 1, per_page: 50 } as const;

export interface ListPageProblem {
  kind: 'WrongDefaults' | 'PerPageNotEchoed' | 'PageNotEchoed' | 'PageSizeNotHonoured' | 'WrongLastPage';
  received: string;
  documented: string;
  clause: string;
}

/** The problems of a 200 page for `query` (page and per_page as sent, undefined when omitted); `what` names the request in the findings. */
export function listPageProblems(query: { page?: number; per_page?: number }, pagination: any, rows: number | null, what: string): ListPageProblem[] {
  const problems: ListPageProblem[] = [];
  const page = query.page ?? LIST_DEFAULTS.page;
  const perPage = query.per_page ?? LIST_DEFAULTS.per_page;
  if (pagination?.per_page !== perPage) {
    problems.push(query.per_page === undefined
      ? { kind: 'WrongDefaults', received: `${what}: pagination ${JSON.stringify(pagination)}`, documented: `per_page ${perPage} (the default)`, clause: '4.4.Q7' }
      : { kind: 'PerPageNotEchoed', received: `${what}: pagination ${JSON.stringify(pagination)}`, documented: `per_page ${perPage} as asked`, clause: '8.L1' });
  }
  if (pagination?.page !== page) {
    problems.push({ kind: query.page === undefined ? 'WrongDefaults' : 'PageNotEchoed', received: `${what}: pagination ${JSON.stringify(pagination)}`, documented: `page ${page}${query.page === undefined ? ' (the default)' : ''}`, clause: query.page === undefined ? '4.4.Q7' : '4.4.Q6' });
  }
  const total = pagination?.total;
  if (!Number.isInteger(total)) return problems;
  const expected = Math.max(0, Math.min(perPage, total - (page - 1) * perPage));
  if (rows !== expected) problems.push({ kind: 'PageSizeNotHonoured', received: `${what}: ${rows} bookings on page ${page} of total ${total}`, documented: `${expected} (per_page ${perPage}, total ${total})`, clause: '8.L1' });
  // last_page of an empty list is not shown (§4.4): judged when there is a booking.
  if (total > 0 && pagination.last_page !== Math.ceil(total / perPage)) problems.push({ kind: 'WrongLastPage', received: `${what}: last_page ${pagination.last_page} for total ${total}`, documented: `ceil(total / ${perPage})`, clause: '4.4.Q7' });
  return problems;
}
