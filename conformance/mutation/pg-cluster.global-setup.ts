/**
 * The mutation run of the store's own tests (vitest.own-tests.config.ts) starts one PostgreSQL cluster per vitest
 * instance, that is per Stryker test-runner process, instead of one per run of pg-store.test.ts: Stryker reruns that
 * file for every mutant its tests reach, and initdb and the server's start cost about three seconds each time, more
 * than a third of the file's run. The file attaches to it (attachPgCluster, a database of its own per test as before);
 * under `npm test` nothing is provided and it starts its own cluster.
 */
import type { TestProject } from 'vitest/node';
import { startPgCluster } from '../../simulator/store/pg-cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared cluster's URL (its `postgres` database), when this vitest instance started one. */
    pgClusterUrl?: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startPgCluster();
  project.provide('pgClusterUrl', cluster.url);
  return () => cluster.stop();
}
