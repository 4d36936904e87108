/** What a file store can refuse with at open; the CLI prints the message and exits 2. */

/** The data directory is held by another live simulator (its lock names the process). */
export class DataDirLockedError extends Error {
  // Stryker disable next-line StringLiteral: the class's name shows only in a stack trace: the CLI and the HTTP layer tell these errors apart by class (instanceof) and print the message
  override readonly name = 'DataDirLockedError';
}

/** A snapshot or journal file cannot be read back; the store never starts empty over it. */
export class StoreDamagedError extends Error {
  // Stryker disable next-line StringLiteral: the class's name shows only in a stack trace: the CLI and the HTTP layer tell these errors apart by class (instanceof) and print the message
  override readonly name = 'StoreDamagedError';
}

/**
 * The journal could not be written or synced: nothing after the last durable
 * transaction is acknowledged, and writes are refused until the disk accepts
 * them again (the HTTP layer answers 503).
 */
export class JournalFailedError extends Error {
  // Stryker disable next-line StringLiteral: the class's name shows only in a stack trace: the CLI and the HTTP layer tell these errors apart by class (instanceof) and print the message
  override readonly name = 'JournalFailedError';
  constructor(message: string, readonly durableN = 0) {
    super(message);
  }
}

/**
 * A transaction or section came after close(): the process is stopping. Work
 * under way at a stop (a delivery's outcome, a sync's step) is left as a kill
 * would leave it, and the next start, or the next holder of its lease, takes it
 * up (domain/recovery.ts; §6.2 at least once).
 */
export class StoreClosedError extends Error {
  // Stryker disable next-line StringLiteral: the class's name shows only in a stack trace: the workers tell it apart by class (instanceof)
  override readonly name = 'StoreClosedError';
}
