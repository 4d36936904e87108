/**
 * The ids and sequences the simulator has issued, as one flat record the
 * store keeps beside its acknowledgement mark (store/ack-mark.ts), and the
 * raise that makes a recovered world issue none of them again.
 *
 * Issue 29, item 1: ids come from counters and sequences from each
 * integration's `last_sequence`, all in the store. A recovery that starts
 * from less than was acknowledged (`--recover`) would count from older
 * values and hand an acknowledged booking id, or a sequence a partner
 * already received (§2.5: per-integration, increasing), to something else.
 */
import type { StoreReader, Transaction } from '../store/store.ts';
import type { CounterName } from './ids.ts';

// Stryker disable all: crash recovery (`--recover` after a store restored from an older copy), the simulator's own durability; a conformance run starts a fresh world per check and never restarts, and no partner call reaches this file (its tests: simulator/store/acknowledged.test.ts, restart.test.ts)

/** `counter:<name>` → last id issued; `sequence:<integration id>` → last sequence issued. */
export type Issued = Record<string, number>;

export function issuedHighWater(reader: StoreReader): Issued {
  const out: Issued = {};
  for (const name of ['brand', 'integration', 'property', 'unit', 'booking'] satisfies CounterName[]) {
    const value = reader.get('counters', name)?.value;
    if (value !== undefined) out[`counter:${name}`] = value;
  }
  for (const i of reader.values('integrations')) out[`sequence:${i.id}`] = i.last_sequence;
  return out;
}

/**
 * Raises every counter and `last_sequence` below `issued` to it: the next id
 * or sequence is past everything issued before. A sequence gap is harmless
 * (delivery and replay step over missing sequences); an integration the
 * recovered world no longer has keeps its id retired through `counter:integration`.
 */
export function raiseIssued(tx: Transaction, issued: Issued): { raised: number } {
  let raised = 0;
  for (const [name, value] of Object.entries(issued)) {
    const [kind, key] = name.split(':') as [string, string];
    if (kind === 'counter') {
      if ((tx.get('counters', key)?.value ?? -1) < value) {
        tx.put('counters', key, { value });
        raised += 1;
      }
    } else if (kind === 'sequence') {
      const integration = tx.get('integrations', key);
      if (integration && integration.last_sequence < value) {
        tx.put('integrations', key, { ...integration, last_sequence: value });
        raised += 1;
      }
    }
  }
  return { raised };
}
