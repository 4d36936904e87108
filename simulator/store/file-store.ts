/**
 * The file store: the memory store, made durable in a data directory by a
 * lowdb snapshot (`state.json`, see snapshot.ts) plus an append-only journal
 * of committed transactions (see journal.ts), compacted in the background.
 *
 * - commit: the overlay becomes one journal line (its puts and deletes),
 *   buffered; the write cost per request is that line, whatever the state size.
 * - flush(): resolves once everything committed so far is written and
 *   synced (an O_DSYNC write, or write + fdatasync); concurrent flushes share
 *   one round (group commit).
 * - compaction, when the journal outgrows max(compactAfterBytes, an eighth of
 *   the snapshot): rotate the journal, write a new snapshot in slices off the hot
 *   path, sync, rename it into place, sync the directory, then drop the
 *   journals it covers. A kill at any point leaves a loadable directory
 *   holding every acknowledged transaction.
 * - open: take the directory lock, load the snapshot, replay the journals,
 *   drop a torn last line (a write cut short), refuse anything else damaged.
 *
 * ARCHITECTURE.md "Storage" argues the design.
 */
import { closeSync, copyFileSync, fsyncSync, ftruncateSync, openSync, readdirSync, rmSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { makeDirectory, syncDir, syncDirSync, tightenModes, type ModeChange } from './durable-fs.ts';
import { StoreClosedError, StoreDamagedError } from './errors.ts';
import { encodeTransaction, journalFileName, JOURNAL_NAME, JournalWriter, scanJournal, type JournalScan, type JournalTransaction } from './journal.ts';
import { LazyTable, RawTexts } from './lazy-table.ts';
import { lockDataDir, type DataDirLock, type LockOwner } from './lock.ts';
import { MANIFEST_FILE, readManifest, writeManifest, type Manifest } from './manifest.ts';
import { ACK_FILE, AckMarkWriter, readAckMark, type AckMark } from './ack-mark.ts';
import { MemoryStore, type Overlay } from './memory-store.ts';
import { PART_NAME, readSnapshot, SNAPSHOT_FILE, SNAPSHOT_TEMP, writeSnapshot, type SnapshotInfo, type SnapshotStep } from './snapshot.ts';
import { VOLATILE_TABLES, type StoreReader, type TableName, type Transaction } from './store.ts';

export type CompactionStep = 'rotated' | SnapshotStep | 'journal-synced' | 'renamed' | 'dir-synced' | 'cleaned';

export interface FileStoreOptions {
  /** Compact once the journal holds this many bytes (or an eighth of the snapshot, if more). Default 64 MiB. */
  compactAfterBytes?: number;
  /** Snapshot file size before it continues in a part file. Default 64 MiB. */
  partBytes?: number;
  /** Longest a compaction slice holds the event loop (then requests run). Default 2 ms. */
  sliceMs?: number;
  /** Called at each compaction step (tests copy the directory there to play a kill). */
  onCompactionStep?: (step: CompactionStep) => void;
  /** A background compaction failed; the store carries on with its journal and retries later. */
  onError?: (error: Error) => void;
  /** Journal writes started to fail (told once per outage): writes are refused until they work again. */
  onWriteFailure?: (error: Error) => void;
  /** Journal writes work again after an outage; `transactions` were written late (none was acknowledged before). */
  onWriteRecovery?: (outage: { ms: number; transactions: number }) => void;
  /** A test knob: consulted before each journal write; an error it returns fails that write (a disk fault on demand). */
  writeFault?: () => Error | null;
  /**
   * The highest ids and sequences issued so far, kept in the acknowledgement
   * mark (ack-mark.ts) so a recovery never issues them again. The store
   * knows no ids: the simulator hands in domain/issued.ts.
   */
  issued?: (reader: StoreReader) => Record<string, number>;
  /** Raises the recovered state past `issued` (domain/issued.ts); applied by `recover` before the state is written out. */
  raiseIssued?: (tx: Transaction, issued: Record<string, number>) => void;
  /**
   * `--recover`: when the journals end before the last acknowledged
   * transaction, start with what is intact instead of refusing: the
   * damaged journal is moved aside (renamed `<name>.damaged-<time>`), the
   * intact state is written out as a fresh snapshot, and every id and
   * sequence is raised past what was issued.
   */
  recover?: boolean;
}

/** What `recover` found missing and did. */
export interface Recovery {
  /** The journal that ended short, as it is now named (moved aside). */
  movedAside: string;
  /** The transaction the journals end at, and the last one acknowledged. */
  lastN: number;
  acknowledgedN: number;
  /** Acknowledged transactions lost with the damage. */
  missing: number;
}

/** What open found and did. */
export interface OpenReport {
  snapshot: SnapshotInfo | null;
  journals: JournalScan[];
  transactionsReplayed: number;
  /** Bytes dropped from the end of the last journal: a write cut short by a kill or a power loss. */
  tornBytes: number;
  tornReason: string | null;
  /** The lock was left by this process, now gone. */
  tookOverLockFrom: LockOwner | null;
  /** The acknowledgement mark was damaged (a power loss during its write): it proved nothing this time. */
  ackMarkDamaged: boolean;
  /** Set when `recover` started from less than was acknowledged. */
  recovery: Recovery | null;
  /** Modes made owner-only at open (the directory 0700, its files 0600): none when all already were. */
  modesTightened: ModeChange[];
  ms: number;
}

export interface CompactionReport {
  generation: number;
  ms: number;
  bytes: number;
  records: number;
  files: string[];
  slices: number;
  /** Longest stretch the compaction held the event loop. */
  maxSliceMs: number;
}

export interface FileStoreStats {
  generation: number;
  journalBytes: number;
  snapshotBytes: number;
  /** Journal write + fdatasync rounds since open. */
  syncRounds: number;
  compactions: number;
  compacting: boolean;
  lastCompaction: CompactionReport | null;
}

const MIB = 1024 * 1024;

/** Snapshot table order: the small world first, the big logs last, so state.json opens on what people look for (others after). */
const TABLE_ORDER = [
  'settings', 'counters', 'brands', 'integrations', 'apiKeys', 'retiredKeys', 'properties', 'units', 'propertyUnits',
  'nights', 'rates', 'restrictions', 'rateWindows', 'syncWindows', 'syncJobs', 'eventStreams', 'supersedable',
  'bookings', 'bookingKeys', 'holds', 'idempotency', 'events',
];
const TABLE_RANK = new Map<string, number>(TABLE_ORDER.map((name, i) => [name, i]));

/** The overlay without its volatile tables (most often the overlay itself: no copy). */
function durablePart(overlay: Overlay): Overlay {
  const tables = [...overlay.keys()];
  if (!tables.some((name) => VOLATILE_TABLES.has(name))) return overlay;
  return new Map([...overlay].filter(([name]) => !VOLATILE_TABLES.has(name)));
}

/** Per name, the higher of two records of ids and sequences issued. */
function maxIssued(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = { ...a };
  for (const [k, v] of Object.entries(b)) if (!(out[k]! >= v)) out[k] = v;
  return out;
}

interface Loaded {
  snapshot: SnapshotInfo | null;
  scans: JournalScan[];
  /** The journal generation to append to. */
  generation: number;
  nextN: number;
  /** Files no longer needed: journals the snapshot covers, parts of other generations, temp files. */
  stale: string[];
  /** With `recover`: the journals end before the acknowledged transaction (else that is an error). */
  short: { path: string; lastN: number; acknowledgedN: number } | null;
}

/** Loads snapshot + journals into `table(name)` maps; changes nothing on disk. */
async function loadState(dir: string, table: (name: string) => LazyTable, manifest: Manifest | null, ack: AckMark | null = null, recover = false): Promise<Loaded> {
  const snapshot = await readSnapshot(dir, table);
  const names = readdirSync(dir);
  const journals = names.flatMap((name) => {
    const m = JOURNAL_NAME.exec(name);
    return m ? [{ name, generation: Number(m[1]) }] : [];
  }).sort((a, b) => a.generation - b.generation);
  const from = snapshot?.generation ?? 0;
  const live = journals.filter((j) => j.generation >= from);
  const lost = (what: string) => new StoreDamagedError(`${what}: acknowledged transactions may be lost with it. The store will not start `
    + 'from a shorter history: restore the data directory from a backup, or move it away to start afresh.');
  // Issue 17: the newest journal deleted used to load as a shorter history without a word.
  // Journal G is created before snapshot G is renamed into place and outlives it, so it always exists.
  const snapshotJournal = snapshot && snapshot.journalFrom !== null ? from : -1;
  const mustExist = Math.max(snapshotJournal, manifest?.generation ?? -1);
  // Issue 29: after a kill only the unacknowledged tail may be missing. The mark names the last acknowledged transaction.
  const acknowledgedN = Math.max(ack?.n ?? 0, manifest?.closedAt ?? 0);
  // A recovery killed between writing its snapshot and creating the snapshot's journal: no journal follows the snapshot, and the
  // snapshot holds every acknowledged transaction (its journal begins after them), so that journal is created anew. A deleted
  // journal that held acknowledged transactions is no such thing: refused even with --recover (docs/simulator.md).
  if (mustExist >= 0 && !live.some((j) => j.generation === mustExist)
    && !(recover && mustExist === snapshotJournal && live.length === 0 && snapshot!.journalFrom! > acknowledgedN)) {
    throw lost(`${join(dir, journalFileName(mustExist))} is missing (${manifest?.generation === mustExist ? `${MANIFEST_FILE} names it the newest journal` : `${SNAPSHOT_FILE} of generation ${from} continues in it`})`);
  }
  // A version 1 document (the first file store) has no journal position: take the journal as it comes.
  let expected: number | null = snapshot ? snapshot.journalFrom : 1;
  const apply = (tx: JournalTransaction) => {
    for (const op of tx.ops) {
      if (op[0] === 'put') table(op[1]).set(op[2], op[3]);
      else table(op[1]).delete(op[2]);
    }
  };
  const scans: JournalScan[] = [];
  for (const [i, j] of live.entries()) {
    const scan = scanJournal(join(dir, j.name), expected, apply);
    // An emptied journal lost its header with its transactions; only a journal newer than the manifest may lack one (a kill while creating it).
    if (manifest && j.generation >= manifest.headersFrom && j.generation <= manifest.generation && !scan.header) {
      throw lost(`${scan.path} has lost its header line (${scan.fileBytes === 0 ? 'it is empty' : 'it does not begin with one'}), so what it held is gone`);
    }
    if (scan.header && scan.header.generation !== j.generation) {
      throw lost(`${scan.path} says it is journal ${scan.header.generation}`);
    }
    if (scan.torn && i < live.length - 1) {
      throw new StoreDamagedError(`${scan.path} is damaged (${scan.torn.reason}), yet the newer journal ${live[i + 1]!.name} follows it: `
        + 'a transaction in the middle of the history is lost. Restore the data directory from a backup, or move it away to start afresh.');
    }
    if (scan.lastN !== null) expected = scan.lastN + 1;
    scans.push(scan);
  }
  // After a clean close the manifest says how far the history reached: a journal cut at a line boundary is short of it.
  const lastN = (expected ?? 1) - 1;
  if (manifest?.closedAt != null && lastN < manifest.closedAt && !recover) {
    throw lost(`the journals of ${dir} end at transaction ${lastN}, but the simulator closed cleanly after transaction ${manifest.closedAt} (${MANIFEST_FILE})`);
  }
  let short: Loaded['short'] = null;
  if (lastN < acknowledgedN) {
    const newest = live.at(-1);
    // No journal left at all (the manifest gone with them, or it would have named one): nothing to keep or move aside, refused even with --recover.
    if (!newest) {
      throw new StoreDamagedError(`${dir} holds no journal, but transactions up to ${acknowledgedN} were acknowledged (${ACK_FILE}): the journals that held them `
        + 'are missing. The store will not start from a shorter history, even with --recover: restore the data directory from a backup, or move it away to start afresh.');
    }
    const path = join(dir, newest.name);
    const missing = acknowledgedN - lastN;
    if (!recover) {
      throw new StoreDamagedError(`${path} ends at transaction ${lastN}, but transactions up to ${acknowledgedN} were acknowledged (${ACK_FILE}): `
        + `${missing} acknowledged record${missing === 1 ? ' is' : 's are'} missing, more than a write cut short by a crash can lose. The store will not start `
        + 'from a shorter history (it would hand out acknowledged ids again): restore the data directory from a backup, start with --recover to keep '
        + 'what is intact (the damaged journal is moved aside), or move the directory away to start afresh.');
    }
    short = { path, lastN, acknowledgedN };
  }
  const keep = new Set(snapshot?.files ?? []);
  const stale = [
    ...journals.filter((j) => j.generation < from).map((j) => j.name),
    ...names.filter((n) => PART_NAME.test(n) && !keep.has(n)),
    ...names.filter((n) => n === SNAPSHOT_TEMP),
  ];
  return { snapshot, scans, generation: live.at(-1)?.generation ?? from, nextN: expected ?? 1, stale, short };
}

/** The state a data directory holds, read without locking or repairing it (inspection, tests). */
export async function readDataDir(dir: string): Promise<{ tables: Map<string, Map<string, unknown>>; snapshot: SnapshotInfo | null; journals: JournalScan[] }> {
  const tables = new Map<string, Map<string, unknown>>();
  const texts = new RawTexts();
  const table = (name: string) => {
    let m = tables.get(name);
    if (!m) tables.set(name, (m = new LazyTable(texts)));
    return m as LazyTable;
  };
  const ack = readAckMark(dir);
  const loaded = await loadState(dir, table, readManifest(dir), ack === 'damaged' ? null : ack);
  return { tables, snapshot: loaded.snapshot, journals: loaded.scans };
}

export class FileStore extends MemoryStore {
  private journal!: JournalWriter;
  /** Journal bytes since the snapshot in files before the current one (a compaction that failed after rotating). */
  private olderJournalBytes = 0;
  private snapshotBytes = 0;
  private compactAt = 0;
  private compaction: Promise<CompactionReport> | null = null;
  private compactions = 0;
  private lastCompaction: CompactionReport | null = null;
  private closing = false;
  private closed = false;
  private unjournaled = false;
  private ackMark!: AckMarkWriter;
  private issuedNow: () => Record<string, number> = () => ({});
  /** What open found: snapshot, journals replayed, torn bytes dropped. */
  report!: OpenReport;
  private manifest!: Manifest;

  private constructor(readonly dir: string, private readonly lock: DataDirLock, private readonly options: FileStoreOptions) {
    super();
  }

  /** Texts the records loaded at open are cut from (shared by every table). */
  private rawTexts?: RawTexts;

  /** Records loaded from disk stay JSON text until first read. */
  protected override newTable(): Map<string, unknown> {
    return new LazyTable((this.rawTexts ??= new RawTexts()));
  }

  /**
   * Opens (or creates) the store in `dir`. Throws DataDirLockedError while
   * another live process holds the directory, StoreDamagedError when a file
   * cannot be read back; it never starts empty over a damaged file.
   */
  static async open(dir: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const started = performance.now();
    const path = resolve(dir);
    makeDirectory(path);
    const lock = lockDataDir(path);
    try {
      // Owner-only before anything is read: guest details, credentials and the vault key (issue 17, issue 29 item 4).
      const modesTightened = tightenModes(path);
      const store = new FileStore(path, lock, options);
      const manifest = readManifest(path);
      const mark = readAckMark(path);
      const ack = mark === 'damaged' ? null : mark;
      const loaded = await loadState(path, (name) => store.table(name as TableName) as unknown as LazyTable, manifest, ack, options.recover === true);
      const last = loaded.scans.at(-1);
      let recovery: Recovery | null = null;
      let generation: number;
      let nextN = loaded.nextN;
      if (loaded.short) {
        // --recover (issue 29): keep what is intact, written out afresh; the short journal goes aside whole.
        ({ recovery, generation, nextN } = await store.recoverShort(loaded, ack?.issued ?? {}));
      } else {
        if (last?.torn) {
          // Recover to the last complete transaction: cut the torn tail off before appending after it.
          const fd = openSync(last.path, 'r+');
          try {
            ftruncateSync(fd, last.validBytes);
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
        }
        for (const name of loaded.stale) rmSync(join(path, name), { force: true });
        // A journal from before the manifest has no header: new transactions go to a new generation that has one.
        const headerless = last !== undefined && !last.header && last.validBytes > 0;
        generation = headerless ? loaded.generation + 1 : loaded.generation;
      }
      store.journal = await JournalWriter.open(path, generation, nextN);
      // The mark names what is durable now, and keeps the ids issued before (a recovery raised the state past them).
      const issuedBefore = ack?.issued ?? {};
      const issued = () => maxIssued(issuedBefore, options.issued?.(store) ?? {});
      store.ackMark = AckMarkWriter.open(path);
      store.ackMark.write({ n: nextN - 1, issued: issued() });
      store.journal.onDurable = (n) => store.ackMark.write({ n, issued: issued() });
      store.issuedNow = issued;
      store.manifest = { generation, headersFrom: manifest?.headersFrom ?? generation, closedAt: null };
      writeManifest(path, store.manifest);
      store.journal.onFailure = (e) => options.onWriteFailure?.(e);
      store.journal.onRecovery = (outage) => options.onWriteRecovery?.(outage);
      store.journal.writeFault = options.writeFault ?? null;
      store.journal.onRotate = (g) => {
        // Held only once written: a manifest that could not be written leaves the rotation refused and this one in force.
        const next = { ...store.manifest, generation: g };
        writeManifest(path, next);
        store.manifest = next;
      };
      store.snapshotBytes = recovery ? store.snapshotBytes : (loaded.snapshot?.bytes ?? 0);
      store.olderJournalBytes = recovery ? 0 : loaded.scans.slice(0, -1).reduce((sum, s) => sum + s.fileBytes, 0);
      store.compactAt = store.compactionLimit();
      store.report = {
        snapshot: loaded.snapshot,
        journals: loaded.scans,
        transactionsReplayed: loaded.scans.reduce((sum, s) => sum + s.transactions, 0),
        tornBytes: recovery ? 0 : (last?.torn?.bytes ?? 0),
        tornReason: recovery ? null : (last?.torn?.reason ?? null),
        tookOverLockFrom: lock.tookOver,
        ackMarkDamaged: mark === 'damaged',
        recovery,
        modesTightened,
        ms: performance.now() - started,
      };
      return store;
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  /**
   * `--recover` after the journals were found short of the acknowledged
   * transaction: raise ids and sequences past what was issued, move the short
   * journal aside (a copy first, so a kill leaves it in place), write the
   * intact state as snapshot G+1 whose journal begins after the last
   * acknowledged transaction (so no transaction number is reused either),
   * then remove the journals it covers. A kill on the way leaves a directory
   * that `--recover` opens again.
   */
  private async recoverShort(loaded: Loaded, issued: Record<string, number>): Promise<{ recovery: Recovery; generation: number; nextN: number }> {
    const short = loaded.short!;
    this.applyWithoutJournal((tx) => this.options.raiseIssued?.(tx, issued));
    const movedAside = `${short.path}.damaged-${new Date().toISOString().replace(/[-:.]/g, '')}`;
    // The short journal is always there: loadState refuses a directory with no journal left.
    copyFileSync(short.path, movedAside);
    const fd = openSync(movedAside, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    syncDirSync(this.dir);
    const generation = Math.max(loaded.generation, loaded.snapshot?.generation ?? 0) + 1;
    const nextN = short.acknowledgedN + 1;
    const written = await writeSnapshot(this.dir, { generation, journalFrom: nextN }, this.snapshotTables(), { ...this.snapshotSlicing(), aborted: () => false });
    await rename(join(this.dir, SNAPSHOT_TEMP), join(this.dir, SNAPSHOT_FILE));
    await syncDir(this.dir);
    this.snapshotBytes = written.bytes;
    this.removeCovered(generation, written.files);
    return {
      recovery: { movedAside, lastN: short.lastN, acknowledgedN: short.acknowledgedN, missing: short.acknowledgedN - short.lastN },
      generation,
      nextN,
    };
  }

  /** What a snapshot holds, in the order state.json shows it: the durable tables with records, the small world first. */
  private snapshotTables(): [string, Map<string, unknown>][] {
    return [...this.tables]
      .filter(([name, map]) => map.size > 0 && !VOLATILE_TABLES.has(name))
      .sort(([a], [b]) => (TABLE_RANK.get(a) ?? 99) - (TABLE_RANK.get(b) ?? 99) || a.localeCompare(b));
  }

  /** How a snapshot is cut into part files and time slices (the options' sizes, else 64 MiB parts and 2 ms slices). */
  private snapshotSlicing(): { partBytes: number; sliceMs: number } {
    return { partBytes: this.options.partBytes ?? 64 * MIB, sliceMs: this.options.sliceMs ?? 2 };
  }

  /** Once snapshot `generation` is in place: the journals it covers and the part files it does not name go. */
  private removeCovered(generation: number, files: string[]): void {
    const keep = new Set(files);
    for (const name of readdirSync(this.dir)) {
      const j = JOURNAL_NAME.exec(name);
      if ((j && Number(j[1]) < generation) || (PART_NAME.test(name) && !keep.has(name))) rmSync(join(this.dir, name), { force: true });
    }
  }

  /** Applies a transaction to the loaded state without journaling it (recovery, before the journal is open). */
  private applyWithoutJournal(fn: (tx: Transaction) => void): void {
    this.unjournaled = true;
    try {
      this.transaction(fn);
    } finally {
      this.unjournaled = false;
    }
  }

  /** Journal bytes since the snapshot. */
  private get journalBytes(): number {
    return this.olderJournalBytes + this.journal.bytes;
  }

  /**
   * The journal may grow to max(compactAfterBytes, an eighth of the
   * snapshot): a restart replays at most that much, and a compaction (which
   * copies records still held as text as they are) comes at most once per
   * that much.
   */
  private compactionLimit(): number {
    return Math.max(this.options.compactAfterBytes ?? 64 * MIB, this.snapshotBytes / 8);
  }

  protected override commit(overlay: Overlay): void {
    if (this.closed) throw new StoreClosedError(`the store in ${this.dir} is closed`);
    if (this.unjournaled) return super.commit(overlay);
    const durable = durablePart(overlay);
    if (durable.size > 0) {
      const n = this.journal.nextN;
      // Encoded (and any unstorable value refused) before anything is applied: all or nothing.
      this.journal.append(n, encodeTransaction(n, durable));
    }
    super.commit(overlay);
    if (this.journalBytes >= this.compactAt && !this.compaction && !this.closing) {
      this.compact().catch((e: Error) => {
        // Keep serving from the journal; try again after as much journal again.
        this.compactAt = this.journalBytes + this.compactionLimit();
        this.options.onError?.(e);
      });
    }
  }

  override flush(): Promise<void> {
    return this.journal.flush();
  }

  /** Writes a new snapshot now (or joins the one in progress) and drops the journals it covers. */
  compact(): Promise<CompactionReport> {
    if (this.closing || this.closed) return Promise.reject(new Error(`the store in ${this.dir} is closing`));
    this.compaction ??= this.runCompaction().finally(() => {
      this.compaction = null;
    });
    return this.compaction;
  }

  private async runCompaction(): Promise<CompactionReport> {
    const started = performance.now();
    const step = (s: CompactionStep) => this.options.onCompactionStep?.(s);
    const generation = this.journal.generation + 1;
    const { firstN, previousBytes } = await this.journal.rotate(generation);
    this.olderJournalBytes += previousBytes;
    step('rotated');
    let live = false;
    try {
      const written = await writeSnapshot(this.dir, { generation, journalFrom: firstN }, this.snapshotTables(), {
        ...this.snapshotSlicing(),
        aborted: () => this.closing,
        step,
      });
      // The snapshot was read live: a transaction it caught half of must be in the journal for good before the snapshot counts.
      await this.journal.flush();
      step('journal-synced');
      await rename(join(this.dir, SNAPSHOT_TEMP), join(this.dir, SNAPSHOT_FILE));
      live = true;
      step('renamed');
      await syncDir(this.dir);
      step('dir-synced');
      this.removeCovered(generation, written.files);
      step('cleaned');
      this.olderJournalBytes = 0;
      this.snapshotBytes = written.bytes;
      this.compactAt = this.compactionLimit();
      this.compactions += 1;
      this.lastCompaction = {
        generation, ms: performance.now() - started, bytes: written.bytes, records: written.records,
        files: written.files, slices: written.slices, maxSliceMs: written.maxSliceMs,
      };
      return this.lastCompaction;
    } catch (e) {
      if (!live) {
        // Nothing points at what was written: remove it (open would too).
        rmSync(join(this.dir, SNAPSHOT_TEMP), { force: true });
        for (const name of readdirSync(this.dir)) {
          const part = PART_NAME.exec(name);
          if (part && Number(part[1]) === generation) rmSync(join(this.dir, name), { force: true });
        }
      }
      throw e;
    }
  }

  stats(): FileStoreStats {
    return {
      generation: this.journal.generation,
      journalBytes: this.journalBytes,
      snapshotBytes: this.snapshotBytes,
      syncRounds: this.journal.rounds,
      compactions: this.compactions,
      compacting: this.compaction !== null,
      lastCompaction: this.lastCompaction,
    };
  }

  /** Flushes, abandons a compaction in progress (its files are removed), closes the journal and releases the lock. */
  override async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    try {
      await this.compaction?.catch(() => undefined);
      try {
        await this.journal.close();
        this.ackMark.write({ n: this.journal.nextN - 1, issued: this.issuedNow() });
      } finally {
        // Closed even when the journal's close was refused: the mark then keeps naming what was durable, and no
        // descriptor outlives the lock.
        this.ackMark.close();
      }
      // A clean close records how far the history reaches (manifest.ts).
      this.manifest = { ...this.manifest, closedAt: this.journal.nextN - 1 };
      writeManifest(this.dir, this.manifest);
    } finally {
      this.closed = true;
      this.lock.release();
    }
  }
}
