/**
 * The simulator's code that implements an exact limit of §8, a default of a
 * §4 table or a duration (issue 25: every non-equivalent mutant of these
 * lines must be killed by the suite). Lines move, code stays: each entry
 * names its file and pieces of code, and a mutant lies on a limit line when
 * the source line it starts on contains one of them. An anchor found on no
 * line is reported (the code changed: look again), as a stale equivalent is.
 *
 * Not here, because Stryker does not mutate them: the limits and defaults the
 * simulator takes from spec/openapi.yaml (page sizes, `limit`, string
 * lengths, units and guests per booking, `page`, `after_sequence`,
 * `include_superseded`, 500 properties per sync). Their both-sides checks are
 * proven by the simulator's faults instead (docs/conformance.md).
 */
export interface LimitLine {
  /** The document's row, as it reads. */
  what: string;
  file: string;
  anchors: string[];
}

export const LIMIT_LINES: LimitLine[] = [
  { what: '§8 event retention: 30 days', file: 'simulator/domain/event-log.ts', anchors: ['RETENTION_DAYS = 30'] },
  { what: '§8 event retention: 30 days', file: 'simulator/domain/replay.ts', anchors: ['DAY_MS = 86_400_000', 'const cutoff = now -', 'e.occurred_at < cutoff', 'retention_days: RETENTION_DAYS'] },
  { what: '§8 idempotency key length: 8 to 128 characters', file: 'protocol/idempotency-key.ts', anchors: ['{ min: 8, max: 128 }'] },
  { what: '§8 idempotency key length, as the create applies it', file: 'simulator/domain/idempotency.ts', anchors: ['{ min: KEY_MIN, max: KEY_MAX }', "const max = faults.has('idempotency-key-max-127')", 'header.length < KEY_MIN || header.length > max'] },
  { what: '§8 idempotency key memory: 24 hours', file: 'simulator/domain/idempotency.ts', anchors: ['KEY_MEMORY_MS = 24 * 3_600_000', 'expires_at: now + (', 'record.expires_at <= now', 'record.expires_at > now'] },
  { what: '§8 check-in earliest date: yesterday', file: 'simulator/domain/bookings.ts', anchors: ["has('check-in-yesterday-refused') ? 0 : -1", 'const yesterday = addDays(dateAt(now), earliest)', 'if (checkIn < yesterday)'] },
  { what: '§8 full sync interval: one per 24 hours', file: 'simulator/domain/sync.ts', anchors: ['SYNC_INTERVAL_MS = 24 * 3_600_000', "const interval = faults.has('sync-interval-23h')", 'now - window.last_accepted_at < interval', 'window.last_accepted_at + interval - now'] },
  { what: '§8 full sync daily cap: six calls per day, refusals included', file: 'simulator/domain/sync.ts', anchors: ['SYNC_DAILY_CAP = 6', 'const calls = window.calls.filter((t) => now - t < SYNC_INTERVAL_MS)', 'calls.push(now)', "const cap = faults.has('sync-cap-7')", 'if (calls.length > cap)', 'calls[calls.length - cap]! + SYNC_INTERVAL_MS - now'] },
  { what: '§8 snapshot window: at most 92 days', file: 'simulator/domain/snapshots.ts', anchors: ['SNAPSHOT_MAX_NIGHTS = 92', 'daysBetween(from, to) + 1 > SNAPSHOT_MAX_NIGHTS'] },
  { what: '§8 snapshot horizon: `to` at most 730 days ahead of today', file: 'simulator/domain/snapshots.ts', anchors: ['SNAPSHOT_HORIZON_DAYS = 730', 'const last = addDays(dateAt(now), SNAPSHOT_HORIZON_DAYS', 'if (to > last)'] },
  { what: '§8 event horizon: horizon_days', file: 'simulator/domain/event-log.ts', anchors: ['addDays(today, integration.horizon_days - 1)'] },
  { what: '§8 auto-pause: five consecutive failures with no success for six hours', file: 'simulator/domain/delivery.ts', anchors: ['const MINUTE = 60 * SECOND', 'const HOUR = 60 * MINUTE', 'AUTO_PAUSE_FAILURES = 5', 'AUTO_PAUSE_AFTER_MS = 6 * HOUR', 'return AUTO_PAUSE_AFTER_MS', 'const failures = w.consecutive_failures + 1', '(failures >= AUTO_PAUSE_FAILURES', 'now - noSuccessSince >= autoPauseAfterMs(faults)'] },
  { what: '§8 previous webhook secret validity: 24 hours', file: 'simulator/domain/integrations.ts', anchors: ['HOUR_MS = 3_600_000', 'PREVIOUS_SECRET_MS = 24 * HOUR_MS', 'const validity = PREVIOUS_SECRET_MS', 'expires_at: deps.now + validity', 'prev.expires_at > now'] },
  { what: '§4.5 units[].children: default 0', file: 'simulator/domain/bookings.ts', anchors: ["children: u.children ?? (ctx.faults?.has('children-default-1')"] },
  { what: '§4.5 guest.phone_code: default `+91`', file: 'simulator/domain/bookings.ts', anchors: ["input.guest.phone_code ?? ("] },
  { what: '§4.5 status: default `confirmed`', file: 'simulator/domain/bookings.ts', anchors: ["status: input.status ?? (ctx.faults?.has('status-default-pending')"] },
  { what: '§4.7 types: default all five', file: 'simulator/domain/sync.ts', anchors: ['if (!types) return [...SYNC_TYPES]'] },
];

/** Which entry's line a mutant starting on `lineText` of `file` is on, if any. */
export function limitOf(file: string, lineText: string): LimitLine | undefined {
  return LIMIT_LINES.find((l) => l.file === file && l.anchors.some((a) => lineText.includes(a)));
}

/** Anchors found on no line of their file's source (files the run did not mutate are not judged). */
export function staleAnchors(sources: Record<string, string | undefined>): { file: string; anchor: string }[] {
  return LIMIT_LINES.flatMap((l) => {
    const source = sources[l.file];
    if (source === undefined) return [];
    return l.anchors.filter((a) => !source.split('\n').some((line) => line.includes(a))).map((anchor) => ({ file: l.file, anchor }));
  });
}
