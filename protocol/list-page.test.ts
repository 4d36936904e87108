/**
 * protocol/list-page.ts: a GET /bookings page judged from its query and
 * answer (§4.4: page default 1; §8: per_page 1 to 200, default 50).
 */
import { describe, expect, it } from 'vitest';
import { LIST_DEFAULTS, listPageProblems } from './list-page.ts';

const kinds = (query: { page?: number; per_page?: number }, pagination: unknown, rows: number | null) => listPageProblems(query, pagination, rows, 'GET /bookings').map((p) => `${p.kind} ${p.clause}`);

describe('listPageProblems', () => {
  it('the defaults are the document\'s: page 1, per_page 50 (§4.4, §8)', () => {
    expect(LIST_DEFAULTS).toEqual({ page: 1, per_page: 50 });
  });

  it('an omitted per_page is 50: a page of 25 of 120 is the wrong default, 50 of 120 is right', () => {
    expect(kinds({}, { page: 1, per_page: 50, total: 120, last_page: 3 }, 50)).toEqual([]);
    expect(kinds({}, { page: 1, per_page: 25, total: 120, last_page: 5 }, 25)).toEqual(['WrongDefaults 4.4.Q7', 'PageSizeNotHonoured 8.L1', 'WrongLastPage 4.4.Q7']);
  });

  it('per_page and page are echoed, and the page holds what is left for it', () => {
    expect(kinds({ per_page: 200, page: 2 }, { page: 2, per_page: 200, total: 250, last_page: 2 }, 50)).toEqual([]);
    expect(kinds({ per_page: 200 }, { page: 1, per_page: 199, total: 250, last_page: 2 }, 199)).toEqual(['PerPageNotEchoed 8.L1', 'PageSizeNotHonoured 8.L1']);
    expect(kinds({ per_page: 1, page: 3 }, { page: 1, per_page: 1, total: 5, last_page: 5 }, 1)).toEqual(['PageNotEchoed 4.4.Q6']);
    expect(kinds({ page: 4 }, { page: 4, per_page: 50, total: 120, last_page: 3 }, 0)).toEqual([]);
    expect(kinds({ page: 3 }, { page: 3, per_page: 50, total: 120, last_page: 3 }, 50)).toEqual(['PageSizeNotHonoured 8.L1']);
  });

  it('last_page of an empty list is not judged (§4.4 does not show it)', () => {
    expect(kinds({}, { page: 1, per_page: 50, total: 0, last_page: 0 }, 0)).toEqual([]);
    expect(kinds({}, { page: 1, per_page: 50, total: 0, last_page: 1 }, 0)).toEqual([]);
  });
});
