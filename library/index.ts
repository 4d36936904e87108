/**
 * The package's library (`import … from 'partner-api-conformance'`): run the
 * conformance suite against a deployment, serve the simulator in-process,
 * write the reports. The `partner-api` command is built on the same calls.
 */
export { runConformance, assertConformance, type ConformanceOptions } from '../conformance/runner.ts';
export type { CheckResult, RunReport, RunSummary, Outcome, MergedReport, MergedDeployment, MergedResult, MergedCoverage } from '../conformance/types.ts';
export { startSimulator, type StartSimulatorOptions, type RunningSimulator } from '../simulator/start-simulator.ts';
export type { Fixtures, FixtureIntegration, FixtureProperty } from '../simulator/demo-world.ts';
export { FAULT_NAMES } from '../simulator/faults.ts';
export { writeReports, writeMergedReports } from '../reporting/write.ts';
export { mergeReports, MergeError, type MergeInput } from '../reporting/merge.ts';
