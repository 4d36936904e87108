/**
 * Where the partner's state survives a restart. Two implementations of one
 * interface, held to the same contract test (state-store.test.ts): memory for
 * tests and scenarios (it still serialises, so nothing live is shared across
 * a restart), and a JSON file written atomically for a real deployment.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PartnerState } from './state.ts';

export interface StateStore {
  /** The last saved state, or null when nothing was ever saved (cold start). */
  load(): Promise<PartnerState | null>;
  /** Replaces the saved state. Resolves once it is durable. */
  save(state: PartnerState): Promise<void>;
}

/** Keeps the serialised text: a reload gets a copy, exactly as a restart from disk would. */
export class MemoryStateStore implements StateStore {
  private text: string | null = null;

  async load(): Promise<PartnerState | null> {
    return this.text === null ? null : (JSON.parse(this.text) as PartnerState);
  }

  async save(state: PartnerState): Promise<void> {
    this.text = JSON.stringify(state);
  }
}

/** One JSON file, replaced atomically (write a temporary file, then rename over). */
export class FileStateStore implements StateStore {
  constructor(private readonly path: string) {}

  async load(): Promise<PartnerState | null> {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as PartnerState;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  async save(state: PartnerState): Promise<void> {
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify(state), 'utf8');
    renameSync(tmp, this.path);
  }
}
