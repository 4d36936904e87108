/**
 * `runCertification()`: one certification run. It sets up a dedicated
 * integration on the platform (in-process simulator or a running one),
 * writes the certification file the partner's own system works from, waits
 * for the partner's receiver, carries out the plan (plan.ts) while the
 * partner uses the API, then grades every requirement (grade.ts) and writes
 * the reports and the certificate. It returns the report; it never exits
 * the process (only the CLI does).
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dateAt } from '../protocol/calendar.ts';
import { DELIVERY_TIMEOUT_MS } from '../simulator/domain/delivery.ts';
import { API_VERSION } from '../spec/document-tables.ts';
import { canonicalJson, issueCertificate, sha256Hex } from './certificate.ts';
import { certifierIdentity } from './certifier-identity.ts';
import { CertificationFileWriter, type CertificationFile, type CoveredProperty } from './credentials-file.ts';
import { emptyObservations, gradeAll, OUTAGE_FAIR_WAIT_MS, OUTAGE_REPLAY_WAIT_MS, summarise, verdictOf, type Observations } from './grade.ts';
import { buildPlan, choose, CRASH_IN_FLIGHT, CRASH_WHILE_DOWN, DEFAULT_DURATION_SECONDS, DRILL_RATE_LIMIT, NORMAL_RATE_LIMIT, orderBody, type PlanChoices } from './plan.ts';
import { RAW_BODY_DESCRIPTIONS, RAW_BODY_VARIANTS, reencode } from './raw-body.ts';
import { deliver, pingBody, receiverProbes, signed, type ProbeContext, type ProbeSpec } from './probes.ts';
import { connectRunningStage, startInProcessStage, type Stage } from './stage.ts';
import { startPartnerProcess, type PartnerProcess } from './partner-process.ts';
import { CRASH_REPLAY_WAIT_MS, NEEDS_PARTNER_COMMAND, crashCounts, notYetRead, type CrashEvent } from './crash-restart.ts';
import { armSnapshotHold, type SnapshotHold } from './snapshot-hold.ts';
import { pauseSeenWithoutReplay } from './pause-seen.ts';
import { evidenceBundle } from './evidence.ts';
import type { EvidenceBundle } from './evidence-bundle.ts';
import { issuanceStatement } from './issuance.ts';
import { DRILL_REQUIREMENT, explainSkippedDrills } from './drill-dependencies.ts';
import { newRunKey, type RunKey } from './run-key.ts';
import { secretFingerprint } from './secret-fingerprint.ts';
import { redactSecrets } from '../reporting/write.ts';
import { httpStateProbe, type StateProbe } from './state-probe.ts';
import { CertifySetupError } from './setup-error.ts';
import { NOTHING_LISTENING_MS, NothingListening } from './nothing-listening.ts';
import { groupNotObserved } from './root-causes.ts';
import type { CertReport, Certificate, DeliveryEvidence, DrillRecord, JournalEntry, StateCheck } from './types.ts';
import { renderReportJson, writeCertification, type WrittenCertification } from './write.ts';

const SPEC_URL = new URL('../spec/openapi.yaml', import.meta.url);
/*
 * Every wait below ends on the event it waits for (the partner's call in the journal, the platform's record of a
 * delivery, the partner's copy showing a value); the figure is only a safety cap, far above what a partner needs on a
 * slow, shared machine. A cap that runs out is said ("not observed", "did not … within N s"), and a requirement whose
 * evidence never came is not observed: no verdict is decided by how fast the machine is.
 */
/** How long one step waits for the partner to act (place an order, retry, acknowledge), at most. */
const STEP_WAIT_MS = 60_000;
/** Quiet time after a refusal, to see whether the partner sends the same create again (the grade reads the whole run's journal). */
const QUIET_MS = 2_500;
/** The crash drill starts only with this much of the run left: a restart, a replay, a drain. */
const CRASH_MIN_MS = 15_000;
/** How long the partner started again gets to answer a signed ping. */
const RESTART_READY_MS = 120_000;
/** How long the webhook's registration waits for the partner's cold-start rates snapshot (a partner may take none). */
const SNAPSHOT_HOLD_WAIT_MS = 60_000;
/** How long a read of the partner's copy waits for it to show a value it was given. */
const STATE_SETTLE_MS = 30_000;
/** How long the platform gets to deliver what is due (it asks for what is due at every look). */
const DRAIN_WAIT_MS = 60_000;
/** A wait that goes on says so this often on the console (a line for the person watching, never a verdict). */
const PROGRESS_EVERY_MS = 10_000;
/** The page a partner writes its signature check from (issue 41 item 7); named in the run's first lines. */
export const SIGNATURE_PAGE = 'docs/verify-webhook-signatures.md';
/**
 * Said of the staff POSTs certify makes that are idempotent by their meaning (spec/staff-openapi.yaml): a pause keeps
 * a paused integration's reason and time, a resume and a disable set a state, a clock advance of 0 s moves nothing and
 * sends what is due. Each is sent once more when its connection closed before any answer (RFC 9110 §9.2.2,
 * conformance/resend.ts); a POST without it never is.
 */
const IDEMPOTENT = { idempotent: true } as const;

export interface CertifyOptions {
  /** The partner's receiver, registered as the integration's webhook. */
  webhookUrl: string;
  /** Upper bound of the run in real seconds (it ends as soon as the plan is done). */
  durationSeconds?: number;
  /**
   * Ends the run early: the step in progress finishes, no further step starts, the waiting for what the
   * partner shows on its own timers stops, and what was observed is graded (drills not run are not observed).
   */
  signal?: AbortSignal;
  seed?: number;
  /** Reports go to `<reportDir>/certify/<run-id>/` and `latest/`; null writes nothing. */
  reportDir?: string | null;
  /** Where the certification file goes (default `<reportDir>/certify/credentials.json`). */
  credentialsOut?: string;
  /** Port of the in-process simulator (0: any free one). */
  port?: number;
  /** A running simulator instead of the in-process one. */
  running?: { baseUrl: string; staffToken: string };
  /** The partner's state probe, as a URL (`GET <url>?property_id=&type=rates&date=`) or in-process. */
  stateUrl?: string | null;
  stateProbe?: StateProbe | null;
  /** The software under test, as the certificate names it (`--partner-name`, `--partner-version`, `--partner-commit`). */
  partner?: { name?: string | null; version?: string | null; commit?: string | null };
  /** An Ed25519 private key (PEM) to sign the certificate with. */
  signingKeyPem?: string | null;
  /**
   * Seconds to wait for the receiver to answer its first ping. Unset (and no `partnerCommand`), a port that refuses
   * every connection for NOTHING_LISTENING_MS ends the wait early as a setup problem (nothing-listening.ts).
   */
  readyTimeoutSeconds?: number;
  /**
   * Multiplies every step's safety cap (a minute for a partner's action, two for a restart; default 1). A cap that
   * runs out only leaves a requirement not observed, so a slow machine asks for more patience, never a different grade;
   * the project's tests that expect everything observed give a cap far above the need.
   */
  patience?: number;
  /**
   * Grade the receiver alone (`--receiver-only`): the steps that need nothing of the partner but its webhook
   * receiver (plan.ts RECEIVER_ONLY_STEPS); usage and recovery are not observed, said once under their cause.
   */
  receiverOnly?: boolean;
  /** Progress lines (the CLI prints them). */
  log?: (line: string) => void;
  /**
   * A shell command that starts the partner's system (`--partner-command`):
   * started once the certification file is written (its path in
   * CERTIFY_CREDENTIALS), stopped with its whole process group when the run
   * ends, however it ends.
   */
  partnerCommand?: string | null;
  /** Called once the certification file is written, before waiting for the partner (tests start their partner here). */
  onCredentials?: (path: string, file: CertificationFile) => void | Promise<void>;
  /** Called with each API call of the run's integration as it is journaled, before its answer leaves (tests act at a partner's call; in-process only). */
  onCall?: (entry: JournalEntry) => void;
}

export interface CertifyResult {
  report: CertReport;
  certificate: Certificate;
  credentialsPath: string;
  files: WrittenCertification | null;
  /** What the grading read (evidence.json), sealed with its digest. */
  evidence: EvidenceBundle;
}

interface Ctx {
  stage: Stage;
  file: CertificationFileWriter;
  integrationId: number;
  slug: string;
  probeCtx: ProbeContext;
  obs: Observations;
  drills: DrillRecord[];
  choices: PlanChoices;
  runId: string;
  since: number;
  deadline: number;
  stateProbe: StateProbe | null;
  /** Another integration's slug, for the wrong X-Service-Integration probe. */
  otherSlug: string;
  /** The superseded rates event of the outage drill, re-sent afterwards as an older event. */
  xSequence: number | null;
  /** The outage drill's event that supersedes it (the newest value of the night). */
  ySequence: number | null;
  log: (line: string) => void;
  /** The partner's processes when certify started them (--partner-command): the crash drill kills and restarts them. */
  partner: { current: PartnerProcess; start(): PartnerProcess } | null;
  signal: AbortSignal | null;
  /** CertifyOptions.patience. */
  patience: number;
}

/** A step's safety cap, with the run's patience. */
function capped(c: Ctx, ms: number): number {
  return ms * c.patience;
}

export async function runCertification(options: CertifyOptions): Promise<CertifyResult> {
  const started = performance.now();
  const durationSeconds = options.durationSeconds ?? DEFAULT_DURATION_SECONDS;
  if (!(durationSeconds > 0)) throw new Error(`durationSeconds must be positive, got ${durationSeconds}`);
  if (options.patience !== undefined && !(options.patience >= 1)) throw new Error(`patience must be 1 or more, got ${options.patience}`);
  const seed = options.seed ?? randomInt(0, 2 ** 31);
  const log = options.log ?? (() => undefined);
  const stage = options.running
    ? await connectRunningStage(options.running.baseUrl, options.running.staffToken)
    : await startInProcessStage({ port: options.port });
  // What the run started or announced, undone in reverse order however it ends.
  const cleanup: Array<() => Promise<void> | void> = [];
  try {
    // The run's own key, made now and forgotten when the run ends: it signs the evidence bundle as it is written.
    return await certify(stage, options, { started, durationSeconds, seed, log, cleanup, runKey: newRunKey() });
  } finally {
    for (const undo of cleanup.reverse()) await Promise.resolve().then(undo).catch((e: unknown) => log(`cleanup: ${(e as Error).message}`));
    stage.disarm();
    await stage.close();
  }
}

interface RunSettings { started: number; durationSeconds: number; seed: number; log: (l: string) => void; cleanup: Array<() => Promise<void> | void>; runKey: RunKey }

async function certify(stage: Stage, options: CertifyOptions, run: RunSettings): Promise<CertifyResult> {
  const { log, seed } = run;
  const startedAt = stage.now();
  const runId = `${new Date(Date.now()).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-')}-${seed.toString(16).padStart(8, '0')}`;
  const warnings: string[] = [];
  if (Math.abs(stage.now() - Date.now()) > 60_000) {
    warnings.push(`The simulator's clock is ${Math.round((stage.now() - Date.now()) / 1000)} s away from real time: a partner checking signature timestamps against its own clock will refuse every delivery.`);
  }

  // A dedicated integration: its own key, secret, sequence and journal.
  const world = await stage.staff<World>('GET', '/world');
  const { brandId, properties } = pickBrand(world);
  const slug = `certify-${runId.slice(-8)}`;
  const created = await stage.staff<{ id: number; api_key: string; webhook_secret: string }>('POST', '/integrations', { brand_id: brandId, name: `Certification ${runId}`, slug });
  await stage.staff('PUT', `/integrations/${created.id}/coverage`, { property_ids: properties.map((p) => p.doorloom_id) });
  const busiest = [...properties].sort((a, b) => b.units.filter((u) => u.active).length - a.units.filter((u) => u.active).length)[0]!;
  const choices = choose(seed, dateAt(stage.now()), busiest.doorloom_id);
  const plan = buildPlan(seed, run.durationSeconds, choices, stage.kind === 'in-process', options.receiverOnly === true);
  const otherSlug = world.integrations.map((i) => i.slug).find((s) => s !== slug) ?? `not-${slug}`;

  const credentialsPath = resolve(options.credentialsOut ?? join(options.reportDir ?? 'reports', 'certify', 'credentials.json'));
  const file = new CertificationFileWriter(credentialsPath, {
    certification: { runId, apiVersion: API_VERSION, readme: 'docs/certification.md' },
    baseUrl: stage.baseUrl,
    integration: { id: created.id, slug },
    apiKey: created.api_key,
    webhookSecret: created.webhook_secret,
    webhookSecrets: [created.webhook_secret],
    properties,
    orders: [],
    finished: false,
  });
  // A partner deployed by hand (the reference partner's CLI) stops when it reads this.
  run.cleanup.push(() => file.update(() => ({ finished: true })));
  log(`certification run ${runId} (seed ${seed}) against ${stage.kind === 'in-process' ? 'an in-process simulator' : 'a running simulator'}${options.receiverOnly ? ', the receiver only (--receiver-only)' : ''}`);
  log(`  base URL          ${stage.baseUrl}`);
  log(`  integration       #${created.id} ${slug}`);
  // Secrets are never printed: they are in the credentials file (mode 0600); the log names them by field and fingerprint.
  log(`  API key           apiKey in the credentials file (${secretFingerprint(created.api_key)})`);
  log(`  webhook secret    webhookSecret in the credentials file (${secretFingerprint(created.webhook_secret)})`);
  log(`  credentials file  ${credentialsPath}   (re-read it after a 401, an unverifiable delivery, and every second for orders)`);
  log(`  run key           ${run.runKey.record.fingerprint}   (signs evidence.json as it is written; the certificate names it)`);
  log(`  webhook URL       ${options.webhookUrl}`);
  log(`  signatures        X-Service-Signature: t=<unix s>,v1=<hex HMAC-SHA256(webhookSecret, "<t>.<raw body>")>, one v1= per valid secret; how to verify, with code: ${SIGNATURE_PAGE}`);
  // §4.8 drill: armed before the partner can start, so the rates snapshot of its cold start is the one held.
  const snapshotHold = plan.steps.some((s) => s.id === 'drill.snapshot-watermark')
    ? armSnapshotHold(stage, { integrationId: created.id, apiKey: () => file.current.apiKey, night: choices.watermarkNight, rate: choices.watermarkRate, log })
    : null;
  if (snapshotHold) run.cleanup.push(() => snapshotHold.disarm());
  if (options.onCall) run.cleanup.push(stage.onCall(created.id, options.onCall));
  await options.onCredentials?.(credentialsPath, file.current);
  let partner: Ctx['partner'] = null;
  if (options.partnerCommand) {
    log(`  partner command   ${options.partnerCommand}`);
    const command = options.partnerCommand;
    const start = () => startPartnerProcess(command, {
      CERTIFY_CREDENTIALS: credentialsPath,
      CERTIFY_WEBHOOK_URL: options.webhookUrl,
      ...(options.stateUrl ? { CERTIFY_STATE_URL: options.stateUrl } : {}),
    }, log);
    const handle = { current: start(), start };
    partner = handle;
    // The crash drill replaces the process: whichever runs when the run ends is stopped.
    run.cleanup.push(() => handle.current.stop());
  }

  const ctx: Ctx = {
    stage, file, integrationId: created.id, slug, choices, runId,
    // A crafted delivery waits as long as the platform's would, times the run's patience: one that runs out is not
    // observed, never a refusal (certify/grade.ts), so a loaded machine asks for patience, never another grade.
    probeCtx: { url: options.webhookUrl, slug, now: () => stage.now(), stamp: (ms) => stage.stamp(ms), timeoutMs: DELIVERY_TIMEOUT_MS * (options.patience ?? 1) },
    obs: { ...emptyObservations(), journal: stage.kind === 'in-process' ? [] : null, stateProbe: Boolean(options.stateProbe ?? options.stateUrl) },
    drills: [],
    since: startedAt,
    deadline: run.started + run.durationSeconds * 1000,
    stateProbe: options.stateProbe ?? (options.stateUrl ? httpStateProbe(options.stateUrl) : null),
    otherSlug,
    xSequence: null,
    ySequence: null,
    log,
    partner,
    signal: options.signal ?? null,
    patience: options.patience ?? 1,
  };

  // A partner certify started that exits before its receiver answered ends the wait: the event, not the cap.
  let partnerGone: string | undefined;
  const partnerExited = partner ? partner.current.exited.then((code) => { partnerGone = `; the --partner-command exited (${code}) before its receiver answered`; }) : null;
  // Nothing listening at the webhook port ends the wait early only where nobody asked for a longer one (nothing-listening.ts).
  const refusedCapMs = options.readyTimeoutSeconds === undefined && !partner ? NOTHING_LISTENING_MS : null;
  const readyMs = (options.readyTimeoutSeconds ?? Math.min(60, run.durationSeconds / 2)) * 1000;
  // The wait for the receiver is --ready-timeout's alone, and --duration counts from its first 2xx: a system that is
  // slow to start (a loaded machine, a second terminal) never has its grading cut short by its start-up.
  ctx.deadline = performance.now() + readyMs;
  const { ready, nothingListening } = await waitForReceiver(ctx, readyMs, () => partnerGone !== undefined, refusedCapMs);
  ctx.deadline = performance.now() + run.durationSeconds * 1000;
  void partnerExited;
  if (ready) {
    log(`  grading for up to ${Math.round(remaining(ctx) / 1000)} s from now (--duration counts from the receiver's first 2xx)`);
    // Before the webhook exists: the change made during the held snapshot can reach the partner only by its replay.
    if (snapshotHold) await snapshotWatermarkDrill(ctx, snapshotHold);
    await stage.staff('PUT', `/integrations/${created.id}/webhook`, { url: options.webhookUrl });
    const steps: Array<[string, (c: Ctx) => Promise<void>]> = [
      ['platform-events', platformEvents],
      ['first-booking', firstBooking],
      ['receiver-checks', receiverChecks],
      ['drill.raw-body', rawBodyDrill],
      ['drill.lost-answer', lostAnswerDrill],
      ['drill.rate-limit', rateLimitDrill],
      ['drill.unavailable', unavailableDrill],
      ['drill.crash-restart', crashRestartDrill],
      ['drill.webhook-outage', outageDrill],
      ['older-event', olderEvent],
      ['drill.key-rotation', keyRotationDrill],
      ['drill.secret-rotation', secretRotationDrill],
      ['observe', observe],
    ];
    const planned = steps.filter(([id]) => plan.steps.some((s) => s.id === id));
    for (const [i, [id, step]] of planned.entries()) {
      if (ctx.signal?.aborted) {
        if (id !== 'observe') warnings.push(`The run was ended early before step ${id}; it and the steps after it did not run.`);
        break;
      }
      if (remaining(ctx) < 1_500) {
        warnings.push(`The run's --duration ran out before step ${id}; it and the steps after it did not run.`);
        break;
      }
      log(`step ${id}`);
      log(`  (${i + 1} of ${planned.length}) ${plan.steps.find((s) => s.id === id)!.title}`);
      await step(ctx);
    }
  } else {
    // §6.2 needs a receiver to grade: none answering is a setup problem, never a grade (no report, no certificate).
    const last = ctx.obs.probes.at(-1);
    const cause = nothingListening ? `; nothing listens there: every connection was refused for ${NOTHING_LISTENING_MS / 1000} s` : '';
    const later = nothingListening ? `; a receiver you start by hand after certify wrote that file gets longer with --ready-timeout S` : '';
    throw new CertifySetupError(`the partner's receiver at ${options.webhookUrl} never answered a signed ping with a 2xx${last ? ` (last: ${last.status ?? last.error})` : ''}${partnerGone ?? ''}${cause}; nothing was graded and no certificate was written. Start your receiver (it verifies signatures as ${SIGNATURE_PAGE} shows) with the credentials file ${credentialsPath}, or give certify the command that starts it (--partner-command)${later}`);
  }

  // Everything the partner did, graded.
  await sleep(200);
  const obs: Observations = {
    ...ctx.obs,
    journal: stage.journal(created.id, startedAt),
    platformDeliveries: await stage.deliveries(created.id),
    superseded: await stage.superseded(created.id, file.current.apiKey),
  };
  if (stage.kind === 'running') {
    // The simulator keeps running: the run's integration stops delivering to the partner.
    await stage.staff('PUT', `/integrations/${created.id}/webhook`, { url: null }).catch(() => undefined);
    await stage.staff('POST', `/integrations/${created.id}/disable`, undefined, IDEMPOTENT).catch(() => undefined);
  }
  const byRequirement: Record<string, string[]> = {};
  for (const d of ctx.drills) (byRequirement[d.requirement] ??= []).push(d.id);
  const graded = gradeAll(obs, byRequirement);
  for (const d of ctx.drills) if (d.outcome !== 'not_run') d.outcome = graded.find((r) => r.id === d.requirement)!.outcome;
  for (const step of plan.steps.filter((s) => s.id.startsWith('drill.') && !ctx.drills.some((d) => d.id === s.id))) {
    ctx.drills.push({ id: step.id, title: step.title, requirement: DRILL_REQUIREMENT[step.id]!, action: '', expected: step.expects, did: ready ? `Not run: ${ctx.signal?.aborted ? 'the run was ended early' : 'the run\'s --duration ran out'} before it.` : 'Not run: the partner\'s receiver never answered a signed ping.', outcome: 'not_run', startedAt: null, finishedAt: null });
  }
  // A drill that did not run is explained next to every requirement that rested on it.
  const results = explainSkippedDrills(graded, ctx.drills);
  if (options.receiverOnly) {
    warnings.push('A --receiver-only run: only the receiver requirements were exercised; API usage and recovery are not observed, so the verdict is at best certified-with-gaps.');
  } else if (obs.crash === null) {
    warnings.push(`The crash-and-restart drill did not run (${(obs.crashNotRun ?? 'the run ended before it').replace(/^Not run: /, '').replace(/\.$/, '')}): recovery.crash-restart is not observed, so the verdict is at best certified-with-gaps.`);
  }
  if (!options.partner?.name || !options.partner?.version) {
    warnings.push('The certificate names no partner software: run with --partner-name and --partner-version (and --partner-commit) so it says what was tested.');
  }
  const finishedAt = stage.now();
  const report: CertReport = {
    runId,
    startedAt: stage.stamp(startedAt),
    finishedAt: stage.stamp(finishedAt),
    apiVersion: API_VERSION,
    specDigest: sha256Hex(readFileSync(SPEC_URL)),
    target: { kind: stage.kind, baseUrl: stage.baseUrl },
    partner: {
      name: options.partner?.name ?? null,
      version: options.partner?.version ?? null,
      commit: options.partner?.commit ?? null,
      webhookUrl: options.webhookUrl,
      integration: { id: created.id, slug },
      stateUrl: options.stateUrl ?? (options.stateProbe ? 'in-process' : null),
    },
    certify: certifierIdentity(),
    plan,
    planDigest: sha256Hex(canonicalJson(plan)),
    drills: ctx.drills,
    results,
    summary: { ...summarise(results), ms: Math.round(performance.now() - run.started) },
    verdict: verdictOf(results),
    warnings,
  };
  // The certificate binds the evidence: it carries the digest of report.json exactly as written.
  const reportJson = renderReportJson(report);
  // Everything the graders read, beside the reports, so a platform can grade it again (--regrade); redacted like them.
  // Signed with the run key as it is made: an edit afterwards no longer verifies with the key the certificate names.
  const evidence = evidenceBundle(reportJson, JSON.parse(redactSecrets(JSON.stringify(obs))) as Observations, run.runKey);
  // Built from the redacted report, so nothing shaped like a secret is ever digested or signed.
  const certificate = issueCertificate(certificateBody(JSON.parse(reportJson) as CertReport, sha256Hex(reportJson), evidence.digest, run.runKey.record.fingerprint), options.signingKeyPem);
  const files = options.reportDir === null ? null : writeCertification(resolve(options.reportDir ?? 'reports', 'certify'), report, reportJson, certificate, evidence);
  for (const r of results.filter((x) => x.outcome !== 'not_observed')) log(`  ${r.outcome === 'pass' ? 'PASS' : 'FAIL'}  ${r.id}  ${r.summary}`);
  // Not observed, under the one cause they share (a partner that never read `orders` reads it once, not six times).
  for (const g of groupNotObserved(results, { receiverOnly: options.receiverOnly === true, journal: obs.journal, drills: ctx.drills, credentialsPath })) {
    if (g.cause === null) {
      for (const id of g.ids) log(`  N/O   ${id}  ${results.find((r) => r.id === id)!.summary}`);
      continue;
    }
    log(`  not observed, ${g.ids.length} requirement${g.ids.length === 1 ? '' : 's'}: ${g.cause}`);
    for (const id of g.ids) log(`  N/O   ${id}`);
  }
  log(`verdict: ${report.verdict} (${report.summary.pass} pass, ${report.summary.fail} fail, ${report.summary.not_observed} not observed)`);
  if (options.receiverOnly) {
    const mine = results.filter((r) => r.group === 'receiver');
    const count = (o: string) => mine.filter((r) => r.outcome === o).length;
    log(`receiver: ${count('pass')} pass, ${count('fail')} fail, ${count('not_observed')} not observed of ${mine.length} requirements (--receiver-only)`);
  }
  if (files) log(`reports in ${files.dir} (and ${files.latest}); certificate ${files.certificate}`);
  return { report, certificate, credentialsPath, files, evidence };
}

export function certificateBody(report: CertReport, reportDigest: string, evidenceDigest?: string, evidenceKey?: string): Certificate['body'] {
  return {
    runId: report.runId,
    issuedAt: report.finishedAt,
    apiVersion: report.apiVersion,
    specDigest: report.specDigest,
    seed: report.plan.seed,
    target: report.target,
    partner: report.partner,
    certify: report.certify,
    plan: report.plan,
    planDigest: report.planDigest,
    results: report.results.map((r) => ({ id: r.id, title: r.title, clauses: r.clauses, outcome: r.outcome, summary: r.summary })),
    drills: report.drills.map((d) => ({ id: d.id, outcome: d.outcome, expected: d.expected, did: d.did })),
    verdict: report.verdict,
    reportDigest,
    ...(evidenceDigest === undefined ? {} : { evidenceDigest, ...(evidenceKey === undefined ? {} : { evidenceKey }), issuance: { mode: 'run' as const, statement: issuanceStatement('run') } }),
  };
}

// ------------------------------------------------------------ world

interface World {
  brands: Array<{ id: number; name: string }>;
  integrations: Array<{ id: number; slug: string }>;
  properties: Array<{ id: number; brand_id: number; external_id: string; ownership: string; archived: boolean; units: Array<{ id: number; external_unit_id: string | null; active: boolean }> }>;
}

/** The brand with the most sellable properties (owned, not archived, an active unit): the demo world's Seaside Stays. */
function pickBrand(world: World): { brandId: number; properties: CoveredProperty[] } {
  const sellable = world.properties.filter((p) => p.ownership === 'owned' && !p.archived && p.units.some((u) => u.active));
  const byBrand = new Map<number, typeof sellable>();
  for (const p of sellable) byBrand.set(p.brand_id, [...(byBrand.get(p.brand_id) ?? []), p]);
  const best = [...byBrand].sort((a, b) => b[1].length - a[1].length)[0];
  if (!best) throw new Error('the simulator has no owned, unarchived property with an active unit to certify on');
  return {
    brandId: best[0],
    properties: best[1].map((p) => ({ doorloom_id: p.id, external_id: p.external_id, units: p.units.map((u) => ({ inventory_id: u.id, external_unit_id: u.external_unit_id, active: u.active })) })),
  };
}

// ------------------------------------------------------------ helpers

function remaining(c: Ctx): number {
  return Math.max(0, c.deadline - performance.now());
}

/**
 * Polls `done` until it holds or `ms` (bounded by the run's deadline) passes; true when it held. With `what`, a wait
 * that goes on says on the console what it waits for, every PROGRESS_EVERY_MS (a line for the reader, never a verdict).
 */
async function until(c: Ctx, ms: number, done: () => boolean | Promise<boolean>, every = 100, what?: string | (() => string)): Promise<boolean> {
  const start = performance.now();
  const end = start + Math.min(ms, remaining(c));
  let said = start;
  for (;;) {
    if (await done()) return true;
    const now = performance.now();
    if (now >= end) return false;
    if (what !== undefined && now - said >= PROGRESS_EVERY_MS) {
      said = now;
      c.log(`  … ${Math.round((now - start) / 1000)} s: still waiting for ${typeof what === 'string' ? what : what()} (up to ${Math.round((end - start) / 1000)} s)`);
    }
    await sleep(every);
  }
}

function journal(c: Ctx): JournalEntry[] {
  return c.stage.journal(c.integrationId, c.since) ?? [];
}

function lastN(c: Ctx): number {
  return journal(c).at(-1)?.n ?? 0;
}

function secrets(c: Ctx): string[] {
  return c.file.current.webhookSecrets;
}

async function integration(c: Ctx): Promise<{ status: string; webhook: { last_sequence: number; undelivered_events: number } }> {
  return c.stage.staff('GET', `/integrations/${c.integrationId}`);
}

/** Waits until every event is delivered; each round asks the platform to send what is due now (staff clock advance of 0 s). */
async function drained(c: Ctx): Promise<boolean> {
  let left = 0;
  return until(c, capped(c, DRAIN_WAIT_MS), async () => {
    await c.stage.staff('POST', '/clock/advance', { seconds: 0 }, IDEMPOTENT);
    return (left = (await integration(c)).webhook.undelivered_events) === 0;
  }, 150, () => `your receiver to answer the platform's deliveries 2xx (${left} undelivered)`);
}

async function probe(c: Ctx, spec: ProbeSpec, record = true): Promise<DeliveryEvidence> {
  const d = await deliver(c.probeCtx, spec);
  if (record) c.obs.probes.push(d);
  c.log(`  probe ${spec.name.padEnd(18)} → ${d.status ?? `no answer (${d.error})`}`);
  return d;
}

/** The newest event the platform delivered (else the newest at all), exactly as posted. */
async function newestEvent(c: Ctx): Promise<{ sequence: number; body: string } | null> {
  const latest = (await integration(c)).webhook.last_sequence;
  let fallback: { sequence: number; body: string } | null = null;
  for (let s = latest; s >= 1 && s > latest - 50; s--) {
    const e = await c.stage.event(c.integrationId, s, c.file.current.apiKey);
    if (!e) continue;
    if (e.status === 'delivered') return e;
    fallback ??= e;
  }
  return fallback;
}

/** Waits until the partner's create of a new booking after journal entry `afterN` has an answer, or the platform shows new events (no journal). */
async function placed(c: Ctx, afterN: number, sequenceBefore: number, count = 1, ms = capped(c, STEP_WAIT_MS)): Promise<JournalEntry[]> {
  let found: JournalEntry[] = [];
  const orders = c.file.current.orders.slice(-count).map((o) => o.n).join(' and ');
  await until(c, ms, async () => {
    if (c.stage.kind === 'running') return (await integration(c)).webhook.last_sequence >= sequenceBefore + 2 * count;
    found = journal(c).filter((e) => e.n > afterN && e.operation === 'createBooking' && e.status >= 200 && e.status < 300);
    return new Set(found.map((e) => e.body_fingerprint)).size >= count;
  }, 100, () => `your system to place order ${orders} of the credentials file's \`orders\` (POST /bookings)${c.stage.kind === 'in-process' && journal(c).length === 0 ? '; it has made no API call yet' : ''}`);
  return found;
}

function drill(c: Ctx, id: string, title: string, action: string, expected: string): DrillRecord {
  const record: DrillRecord = { id, title, requirement: DRILL_REQUIREMENT[id]!, action, expected, did: '', outcome: 'not_observed', startedAt: c.stage.stamp(), finishedAt: null };
  c.drills.push(record);
  return record;
}

function finish(c: Ctx, d: DrillRecord, did: string): void {
  d.did = did;
  d.finishedAt = c.stage.stamp();
  c.log(`  ${did}`);
}

// ------------------------------------------------------------ steps

/**
 * Requirements a partner shows on its own timers (reconciling bookings,
 * polling GET /me, a replay or snapshot it decides on): after the drills the
 * run waits for them until --duration runs out, and ends as soon as all are
 * observed. What no waiting can show (a drill that did not run, no journal)
 * does not hold the run.
 */
export const SHOWN_OVER_TIME = ['usage.updated-since', 'usage.me-interval', 'usage.replay-walk', 'usage.snapshot-watermark'] as const;

async function observe(c: Ctx): Promise<void> {
  if (c.stage.kind !== 'in-process') return;
  const pending = () => gradeAll({ ...c.obs, journal: journal(c) })
    .filter((r) => (SHOWN_OVER_TIME as readonly string[]).includes(r.id) && r.outcome === 'not_observed').map((r) => r.id);
  let waiting = pending();
  if (waiting.length === 0) return c.log('  everything shown over time is observed');
  const start = performance.now();
  c.log(`  waiting up to ${Math.round(remaining(c) / 1000)} s (--duration) for ${waiting.join(', ')}`);
  await until(c, remaining(c), () => (waiting = pending()).length === 0 || Boolean(c.signal?.aborted), 1_000);
  c.log(waiting.length === 0 ? `  all observed after ${((performance.now() - start) / 1000).toFixed(0)} s` : `  ${c.signal?.aborted ? 'the run was ended early' : '--duration ran out'} with ${waiting.join(', ')} not observed`);
}

/**
 * Pings the receiver until it answers 2xx, the partner command exits, or `ms` passes; with `refusedCapMs`, also
 * until the port has refused every connection that long (nothing-listening.ts): `nothingListening` says so.
 */
async function waitForReceiver(c: Ctx, ms: number, gone: () => boolean, refusedCapMs: number | null): Promise<{ ready: boolean; nothingListening: boolean }> {
  let last: DeliveryEvidence | null = null;
  const refusals = new NothingListening(refusedCapMs);
  let nothingListening = false;
  const early = refusedCapMs === null ? '' : `; a port that refuses every connection for ${refusedCapMs / 1000} s ends the run (--ready-timeout S waits the whole time)`;
  c.log(`waiting up to ${Math.round(Math.min(ms, remaining(c)) / 1000)} s (--ready-timeout) for your receiver to answer a signed ping 2xx${early}`);
  const answered = await until(c, ms, async () => {
    if (gone()) return true;
    const t = Math.floor(c.stage.now() / 1000);
    const body = pingBody({ id: c.integrationId, slug: c.slug }, 0, c.stage.stamp());
    last = await deliver({ ...c.probeCtx, timeoutMs: 2_000 }, { name: 'valid-ping', body, signature: signed(secrets(c), t, body), integrationHeader: c.slug });
    refusals.note(last, performance.now());
    if ((nothingListening = refusals.gaveUp(performance.now()))) return true;
    return last.status !== null && last.status >= 200 && last.status < 300;
  }, 250, () => `your receiver at ${c.probeCtx.url} (last: ${(last as DeliveryEvidence | null)?.status ?? (last as DeliveryEvidence | null)?.error ?? 'none'})`);
  const ok = answered && !gone() && !nothingListening;
  if (last) c.obs.probes.push(last);
  c.log(ok ? 'receiver answered a signed ping' : `receiver did not answer: ${(last as DeliveryEvidence | null)?.status ?? (last as DeliveryEvidence | null)?.error}`);
  return { ready: ok, nothingListening };
}

/**
 * Receiver-only runs: events the platform delivers without the partner placing an order. Staff change the rates
 * window twice; each change is delivered (and drained) before the next, so the first is delivered, not superseded
 * (§3.3), and is the older event the 'older-event' step re-sends after the newer one (§6.4).
 */
async function platformEvents(c: Ctx): Promise<void> {
  const { propertyId, ratesWindow, rateX, rateY } = c.choices;
  const change = async (rate: number): Promise<number> => {
    await c.stage.staff('PUT', `/properties/${propertyId}/rates`, { from: ratesWindow.from, to: ratesWindow.to, base_rate: rate });
    const sequence = (await integration(c)).webhook.last_sequence;
    await drained(c);
    return sequence;
  };
  c.xSequence = await change(rateX);
  c.ySequence = await change(rateY);
  const answered = (await c.stage.deliveries(c.integrationId)).filter((d) => d.sequence === c.xSequence || d.sequence === c.ySequence);
  c.log(`  the platform delivered sequences ${c.xSequence} and ${c.ySequence} (base_rate ${rateX}, then ${rateY}): ${answered.map((d) => `${d.sequence} → ${d.status ?? d.error}`).join(', ') || 'no delivery recorded'}`);
  await checkState(c, 'after the platform delivered the newer rate', true);
}

async function firstBooking(c: Ctx): Promise<void> {
  const before = (await integration(c)).webhook.last_sequence;
  const n = lastN(c);
  c.file.addOrder(orderBody(c.runId, 1, c.choices));
  await placed(c, n, before);
  await drained(c);
}

async function receiverChecks(c: Ctx): Promise<void> {
  const newest = await newestEvent(c);
  const body = newest?.body ?? pingBody({ id: c.integrationId, slug: c.slug }, 0, c.stage.stamp());
  // §6.4: the duplicate is an event the platform's delivery log shows the partner already answered 2xx, never one new to it.
  // Waited for (an event, not a time): a platform that counts an attempt in flight as delivered shows no answer yet.
  await until(c, capped(c, STEP_WAIT_MS), async () => (await acknowledgedEvent(c)) !== null, 200);
  const duplicate = await acknowledgedEvent(c);
  const now = Math.floor(c.stage.now() / 1000);
  for (const spec of receiverProbes({ slug: c.slug }, secrets(c), body, now, c.otherSlug)) {
    if (spec.name === 'redelivery') {
      if (!duplicate) {
        c.log('  probe redelivery          not sent: no event the platform delivered was answered 2xx yet');
        continue;
      }
      c.obs.duplicateOf = duplicate.delivery;
      await probe(c, { ...spec, body: duplicate.body, signature: signed(secrets(c), now, duplicate.body) });
      continue;
    }
    await probe(c, spec);
  }
}

/** The newest event the platform's delivery log shows the partner answered 2xx, exactly as posted, with that record; null when none. */
async function acknowledgedEvent(c: Ctx): Promise<{ sequence: number; body: string; delivery: DeliveryEvidence } | null> {
  const acked = (await c.stage.deliveries(c.integrationId)).filter((d) => d.sequence !== null && d.status !== null && d.status >= 200 && d.status < 300);
  const delivery = acked.sort((a, b) => b.sequence! - a.sequence!)[0];
  if (!delivery) return null;
  const event = await c.stage.event(c.integrationId, delivery.sequence!, c.file.current.apiKey);
  return event ? { ...event, delivery } : null;
}

async function rawBodyDrill(c: Ctx): Promise<void> {
  const { propertyId, rawBodyNights, rawBodyRates } = c.choices;
  const d = drill(c, 'drill.raw-body', 'Raw-body signatures',
    `Delivery is withheld (staff pause) while rates change on ${rawBodyNights.length} nights of property ${propertyId} (${rawBodyNights[0]} to ${rawBodyNights.at(-1)}); each new event is posted straight to the receiver, correctly signed over bytes JSON.stringify never writes (${RAW_BODY_VARIANTS.map((v) => `${v}: ${RAW_BODY_DESCRIPTIONS[v]}`).join('; ')}), then a booking event is re-sent with its "/" and "é" escaped. Delivery is then given back (the platform's own copies follow).`,
    'Verify the signature over the bytes as received: answer every one 2xx and apply each new rate (spec x-assumption on X-Service-Signature; §6.2, §6.4).');
  await drained(c);
  const secretsNow = secrets(c);
  const t = () => Math.floor(c.stage.now() / 1000);
  const answers: DeliveryEvidence[] = [];
  await c.stage.staff('POST', `/integrations/${c.integrationId}/pause`, undefined, IDEMPOTENT);
  try {
    const events: Array<{ sequence: number; body: string }> = [];
    for (const [i, night] of rawBodyNights.entries()) {
      await c.stage.staff('PUT', `/properties/${propertyId}/rates`, { from: night, to: night, base_rate: rawBodyRates[i] });
      const sequence = (await integration(c)).webhook.last_sequence;
      const stored = await c.stage.event(c.integrationId, sequence, c.file.current.apiKey);
      if (stored) events.push(stored);
    }
    // In sequence order, as the platform would deliver them (§6.2), each in its own encoding.
    for (const [i, variant] of RAW_BODY_VARIANTS.entries()) {
      const event = events[i];
      const body = event ? reencode(event.body, variant) : null;
      if (!event || body === null) continue;
      answers.push(await probe(c, { name: `raw-body-${variant}`, body, signature: signed(secretsNow, t(), body), integrationHeader: c.slug }));
    }
    // The "/" (as \/) and "é" (as \u00e9) of a guest's name: a booking event of the run, re-sent (full state: a no-op, §6.4).
    const booking = await bookingEventWithEscapes(c);
    if (booking) answers.push(await probe(c, { name: 'raw-body-escapes-booking', body: booking, signature: signed(secretsNow, t(), booking), integrationHeader: c.slug }));
    if (c.stateProbe) {
      for (const [i, variant] of RAW_BODY_VARIANTS.entries()) {
        const check: StateCheck = { when: `raw-body-${variant} (sequence ${events[i]?.sequence ?? '?'})`, property_id: propertyId, type: 'rates', date: rawBodyNights[i]!, field: 'base_rate', expected: rawBodyRates[i], older: null, held: undefined };
        try {
          const night = await c.stateProbe({ property_id: propertyId, type: 'rates', date: rawBodyNights[i]! });
          check.held = night === null ? undefined : night.base_rate;
        } catch (e) {
          check.error = (e as Error).message;
        }
        c.obs.rawBody.push(check);
      }
    }
  } finally {
    await c.stage.staff('POST', `/integrations/${c.integrationId}/resume`, undefined, IDEMPOTENT);
  }
  await drained(c);
  const held = c.obs.rawBody.filter((x) => x.held === x.expected).length;
  finish(c, d, `Answers: ${answers.map((a) => `${a.name.slice('raw-body-'.length)} ${a.status ?? `none (${a.error})`}`).join(', ')}${c.stateProbe ? `; the new rate held for ${held} of ${c.obs.rawBody.length} nights` : ''}.`);
}

/** A booking event of the run whose body holds a "/" or a non-ASCII character, re-encoded with them escaped; null when none does. */
async function bookingEventWithEscapes(c: Ctx): Promise<string | null> {
  const latest = (await integration(c)).webhook.last_sequence;
  for (let s = latest; s >= 1 && s > latest - 60; s--) {
    const e = await c.stage.event(c.integrationId, s, c.file.current.apiKey);
    if (e && e.body.includes('"booking.changed"') && /[/\u0080-\uffff]/.test(e.body)) return reencode(e.body, 'escapes');
  }
  return null;
}

async function snapshotWatermarkDrill(c: Ctx, hold: SnapshotHold): Promise<void> {
  const { watermarkNight, watermarkRate } = c.choices;
  const d = drill(c, 'drill.snapshot-watermark', 'Snapshot watermark',
    `Before the webhook is registered, the answer of the partner's first rates snapshot is held once built (its data.sequence read) while the base_rate of one night of its window (${watermarkNight} when the window holds it, else its nearest night) changes to ${watermarkRate}: an event above the watermark, recorded before the partner can read the latest sequence. The webhook is registered only once the partner's replay after the snapshot has ended; its copy of the night is read then.`,
    'Set the cursor to the snapshot\'s data.sequence, not to the latest sequence: the replay after the snapshot reads the change and the copy of the night ends with the new rate (§4.8 watermark rule, §6.8 cold start).');
  const wait = Math.min(capped(c, SNAPSHOT_HOLD_WAIT_MS), remaining(c));
  const change = await Promise.race([hold.changed, sleep(wait).then(() => null)]);
  hold.disarm();
  if (!change) {
    d.outcome = 'not_run';
    return finish(c, d, `Not run: the partner took no rates snapshot within ${Math.round(wait / 1000)} s of answering the first ping (a cold start rebuilds from snapshots or POST /sync, §6.8); the webhook was registered without it.`);
  }
  // The walk after the snapshot: done once a page says has_more false.
  let walk: JournalEntry[] = [];
  await until(c, capped(c, STEP_WAIT_MS), () => {
    walk = journal(c).filter((e) => e.n > change.snapshotN && e.operation === 'listEvents' && e.status === 200 && e.cursor && e.query.limit !== '1');
    return walk.some((e) => !e.cursor!.has_more);
  });
  const state: StateCheck[] = [];
  if (c.stateProbe && walk.length > 0) {
    // The page is applied after it is read, and a partner may open its probe only once its start is done: wait on the
    // copy (bounded), not a fixed time; the last read is the evidence.
    let check: StateCheck | null = null;
    await until(c, capped(c, STATE_SETTLE_MS), async () => {
      check = await readNight(c, `after the replay that followed snapshot #${change.snapshotN}`, change.propertyId, change.night, change.after, change.before);
      return check.held === change.after;
    }, 200);
    if (check) state.push(check);
  }
  c.obs.snapshotWatermark = { ...change, state };
  const first = walk[0];
  const held = state[0];
  finish(c, d, `Snapshot #${change.snapshotN} of property ${change.propertyId} (${change.window.from}..${change.window.to}, watermark ${change.watermark}) held while ${change.night} changed ${JSON.stringify(change.before)} → ${change.after} (sequence ${change.changeSequence}); ${first
    ? `the partner's next replay #${first.n} started at after_sequence ${first.cursor!.after_sequence} (${walk.length} page${walk.length === 1 ? '' : 's'})`
    : `the partner sent no replay page within ${capped(c, STEP_WAIT_MS) / 1000} s`}${held ? `; its copy of ${change.night}: base_rate ${held.error ?? JSON.stringify(held.held)}` : ''}.`);
}

/** The partner's copy of one night's rates, through its state probe. */
async function readNight(c: Ctx, when: string, propertyId: number, date: string, expected: unknown, older: unknown): Promise<StateCheck> {
  const check: StateCheck = { when, property_id: propertyId, type: 'rates', date, field: 'base_rate', expected, older, held: undefined };
  try {
    const night = await c.stateProbe!({ property_id: propertyId, type: 'rates', date });
    check.held = night === null ? undefined : night.base_rate;
  } catch (e) {
    check.error = (e as Error).message;
  }
  return check;
}

async function lostAnswerDrill(c: Ctx): Promise<void> {
  const d = drill(c, 'drill.lost-answer', 'Lost answer of a create',
    'The next POST /bookings (order 2) is processed and the booking made, then its connection is dropped before the answer leaves.',
    'Retry with the same Idempotency-Key and the identical body; the platform replays the original 201 (§4.5 rule 1).');
  const withheld = c.stage.withholdNextCreateAnswer(c.integrationId);
  if (!withheld) return finish(c, d, 'Not run: only the in-process simulator can withhold an answer.');
  c.file.addOrder(orderBody(c.runId, 2, c.choices));
  const entry = await Promise.race([withheld, sleep(Math.min(capped(c, STEP_WAIT_MS), remaining(c))).then(() => null)]);
  c.stage.disarm();
  if (!entry) return finish(c, d, 'The partner did not place order 2 in time.');
  c.obs.lostAnswers.push(entry.n);
  let retries: JournalEntry[] = [];
  await until(c, capped(c, STEP_WAIT_MS), () => {
    retries = journal(c).filter((e) => e.n > entry.n && e.operation === 'createBooking' && (e.body_fingerprint === entry.body_fingerprint || e.idempotency_key === entry.idempotency_key));
    return retries.some((e) => e.status < 300);
  });
  if (retries.length === 0) return finish(c, d, `Call #${entry.n} (answered ${entry.status}, withheld) was never retried.`);
  const described = retries.map((e) => `#${e.n} ${e.idempotency_key === entry.idempotency_key ? 'same key' : 'NEW key'}, ${e.body_fingerprint === entry.body_fingerprint ? 'identical body' : 'CHANGED body'} → ${e.status}${e.code ? ` ${e.code}` : ''}`);
  finish(c, d, `Call #${entry.n} withheld; retries: ${described.join('; ')}.`);
}

async function rateLimitDrill(c: Ctx): Promise<void> {
  const d = drill(c, 'drill.rate-limit', 'Rate limited',
    `The integration's rate limit is set to ${DRILL_RATE_LIMIT.limit} call per ${DRILL_RATE_LIMIT.window_seconds} s; orders 3 and 4 are handed over together.`,
    'On 429 RATE_LIMITED, wait the Retry-After before any further call; then place both orders (§7).');
  const before = (await integration(c)).webhook.last_sequence;
  const n = lastN(c);
  await c.stage.staff('PUT', `/integrations/${c.integrationId}/rate-limit`, DRILL_RATE_LIMIT);
  c.file.addOrder(orderBody(c.runId, 3, c.choices));
  c.file.addOrder(orderBody(c.runId, 4, c.choices));
  try {
    await placed(c, n, before, 2, 3 * capped(c, STEP_WAIT_MS) / 2);
  } finally {
    await c.stage.staff('PUT', `/integrations/${c.integrationId}/rate-limit`, NORMAL_RATE_LIMIT);
  }
  const calls = journal(c).filter((e) => e.n > n);
  const refused = calls.filter((e) => e.status === 429);
  if (c.stage.kind === 'running') return finish(c, d, 'Rate limit applied and lifted; the partner\'s calls cannot be seen on a running simulator.');
  if (refused.length === 0) return finish(c, d, `${calls.length} calls, none refused: the partner's calls were spread out enough not to meet the limit.`);
  const r = refused[0]!;
  const next = calls.find((e) => e.n > r.n);
  finish(c, d, `${refused.length} call${refused.length === 1 ? '' : 's'} answered 429; after the first (#${r.n}, Retry-After ${r.retry_after} s) the next call came ${next ? `${((next.at - r.at) / 1000).toFixed(2)} s later (#${next.n})` : 'never'}.`);
}

async function unavailableDrill(c: Ctx): Promise<void> {
  const stay = c.choices.stays[4]!;
  const d = drill(c, 'drill.unavailable', '409 UNAVAILABLE',
    `Every night of order 5 (${stay.check_in} to ${stay.check_out}, property ${c.choices.propertyId}) is blocked before the order is handed over.`,
    'The create is refused 409 UNAVAILABLE; the partner treats it as final and does not send it again (§4.5 rules 1 and 7).');
  const lastNight = new Date(Date.parse(`${stay.check_out}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  await c.stage.staff('PUT', `/properties/${c.choices.propertyId}/nights`, { from: stay.check_in, to: lastNight, is_blocked: true, block_scope: 'everywhere' });
  const n = lastN(c);
  c.obs.unavailable = { issuedAt: c.stage.now(), afterN: n };
  c.file.addOrder(orderBody(c.runId, 5, c.choices));
  if (c.stage.kind === 'running') {
    await sleep(Math.min(QUIET_MS * 2, remaining(c)));
    return finish(c, d, 'Order handed over; the partner\'s calls cannot be seen on a running simulator.');
  }
  let attempt: JournalEntry | undefined;
  const known = new Set(journal(c).filter((e) => e.operation === 'createBooking').map((e) => e.body_fingerprint));
  await until(c, capped(c, STEP_WAIT_MS), () => Boolean(attempt = journal(c).find((e) => e.n > n && e.operation === 'createBooking' && !known.has(e.body_fingerprint))));
  if (!attempt) return finish(c, d, 'The partner did not place order 5 in time.');
  await sleep(Math.min(QUIET_MS, remaining(c)));
  const again = journal(c).filter((e) => e.n > attempt!.n && e.operation === 'createBooking' && (e.body_fingerprint === attempt!.body_fingerprint || e.idempotency_key === attempt!.idempotency_key));
  finish(c, d, `Create #${attempt.n} answered ${attempt.status} ${attempt.code ?? ''}; sent again ${again.length} time${again.length === 1 ? '' : 's'}${again.length ? ` (#${again.map((e) => e.n).join(', #')})` : ''}.`);
}

async function outageDrill(c: Ctx): Promise<void> {
  const { propertyId, ratesWindow, rateX, rateY, fillerNights } = c.choices;
  const d = drill(c, 'drill.webhook-outage', 'Webhook outage',
    `Delivery is withheld (staff pause: GET /me shows status paused) while rates change on ${fillerNights.length + 2} windows of property ${propertyId} (rate ${rateX} over ${ratesWindow.from}..${ratesWindow.to} first, then the filler nights, then ${rateY} over the same window: the first superseded, more than a page away); the partner's state is read before each GET /events it sends; unless the partner replays within a minute (when the run has one to spare), the newest event alone is then delivered, revealing the gap.`,
    'Replay GET /events from the stored cursor, walking next_after_sequence through the newest sequence, without applying the superseded event (§6.8, §4.6, §3.3).');
  await drained(c);
  await c.stage.staff('POST', `/integrations/${c.integrationId}/pause`, undefined, IDEMPOTENT);
  const pausedAt = c.stage.now();
  // Read once paused: on a loaded machine delivery may not have drained in time, and what was pushed up to the pause is not withheld.
  const before = (await integration(c)).webhook.last_sequence;
  const put = (from: string, to: string, base_rate: number) => c.stage.staff('PUT', `/properties/${propertyId}/rates`, { from, to, base_rate });
  // A GET /events the partner sends while the changes are being recorded is answered once they all are (latency, which
  // any platform may show): a partner quick to see the pause would otherwise replay half of them, X not yet superseded,
  // and how much of the drill it sees would depend on the machine's speed. Then its copy is read before every GET
  // /events it sends until delivery is back: the pages before it are applied.
  let recorded = (): void => undefined;
  const recording = new Promise<void>((ok) => (recorded = ok));
  let reads = 0;
  const gated = c.stage.beforeEventsPage(async () => {
    await recording;
    if (c.stateProbe === null) return;
    reads += 1;
    await checkState(c, `before GET /events call ${reads} of the outage (every page before it applied)`);
  });
  const perPage = gated && c.stateProbe !== null;
  let xSequence: number, ySequence: number, latest: number, recordedN = 0, recordedAt = pausedAt;
  try {
    // §3.3: X first and Y second-to-last, the filler nights between them: more than a page apart at any limit (§4.6: at
    // most 200), so a partner that applies superseded rows in sequence order holds X between pages, however soon Y repairs it.
    await put(ratesWindow.from, ratesWindow.to, rateX);
    xSequence = (await integration(c)).webhook.last_sequence;
    const filler = (i: number) => put(fillerNights[i]!, fillerNights[i]!, 6100 + (i % 50) * 10);
    for (let i = 0; i < fillerNights.length - 1; i++) await filler(i);
    await put(ratesWindow.from, ratesWindow.to, rateY);
    ySequence = (await integration(c)).webhook.last_sequence;
    await filler(fillerNights.length - 1);
    latest = (await integration(c)).webhook.last_sequence;
  } finally {
    // The calls journaled by now were answered without a read of the copy (none: the gate holds them until just below).
    recordedN = lastN(c);
    recordedAt = c.stage.now();
    recorded();
  }
  c.obs.outage = { pausedAt, recordedAt, resumedAt: pausedAt, before, latest, propertyId, waitedMs: 0 };
  c.xSequence = xSequence;
  c.ySequence = ySequence;
  const waitStart = performance.now();
  const covered = () => {
    if (c.stage.kind === 'running') return false;
    // Pages read before the pause count too, as in the grading (certify/grade.ts, outageReplay).
    const pages = journal(c).filter((e) => e.operation === 'listEvents' && e.cursor);
    for (let s = before + 1; s <= latest; s++) if (!pages.some((e) => s > e.cursor!.after_sequence && s <= e.cursor!.next_after_sequence)) return false;
    return true;
  };
  // With time for it, a partner that learns of the pause from GET /me (once a minute, §5.7) gets its minute before
  // the gap is revealed: the revealing delivery skips past its cursor, which §6.2's order never does on its own.
  // A running simulator's journal cannot be read: the partner gets a few seconds, nothing is graded.
  const meWindow = c.stage.kind === 'in-process' && remaining(c) >= OUTAGE_FAIR_WAIT_MS + OUTAGE_REPLAY_WAIT_MS ? OUTAGE_FAIR_WAIT_MS : 0;
  let replayed = meWindow > 0 && await until(c, meWindow, covered, 250);
  let revealedAfter: number | null = null;
  if (!replayed) {
    revealedAfter = Math.round(performance.now() - waitStart);
    const newest = await c.stage.event(c.integrationId, latest, c.file.current.apiKey);
    if (newest) await probe(c, { name: 'gap-delivery', body: newest.body, signature: signed(secrets(c), Math.floor(c.stage.now() / 1000), newest.body), integrationHeader: c.slug });
    // Until the replay covers them, or the partner shows it will not (the pause read twice by GET /me, no replay between).
    if (c.stage.kind === 'running') await sleep(Math.min(5_000, remaining(c)));
    else await whileReading(c, OUTAGE_REPLAY_WAIT_MS, () => covered() || pauseSeenWithoutReplay(journal(c), recordedAt, c.stage.now()) !== null);
    replayed = covered();
  }
  const waitedMs = Math.round(performance.now() - waitStart);
  // §3.3: the copy right after the replay, before the platform drains the backlog over it.
  await checkState(c, 'after the replay, before delivery resumed', true);
  await c.stage.staff('POST', `/integrations/${c.integrationId}/resume`, undefined, IDEMPOTENT);
  c.obs.outage = { ...c.obs.outage, resumedAt: c.stage.now(), waitedMs };
  await drained(c);
  c.stage.beforeEventsPage(null);
  // One set of counts: the GET /events calls while delivery was withheld, those sent while the drill was still
  // recording (no state read before them), and the reads before every call after that (one per call).
  const all = journal(c).filter((e) => e.operation === 'listEvents' && e.at >= pausedAt);
  const withheld = all.filter((e) => e.at <= c.obs.outage!.resumedAt);
  const early = all.filter((e) => e.n <= recordedN).length;
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const reading = perPage
    ? ` Its state was read before each GET /events call it sent once the events were recorded: ${plural(reads, 'read')} for ${plural(all.length - early, 'call')}${early > 0 ? ` (its ${plural(early, 'call')} while they were being recorded had no read)` : ''}.`
    : '';
  finish(c, d, c.stage.kind === 'running'
    ? 'Delivery withheld and resumed; replay cannot be seen on a running simulator.'
    : `Sequence ${before + 1} to ${latest} (${plural(latest - before, 'event')}) recorded while withheld; ${revealedAfter === null ? 'no gap-revealing delivery was needed' : `the gap-revealing delivery (sequence ${latest}) was sent after ${(revealedAfter / 1000).toFixed(1)} s`}; ${replayed
      ? `the partner replayed them with ${plural(withheld.length, 'GET /events call')} while delivery was withheld, within ${(waitedMs / 1000).toFixed(1)} s.`
      : `in ${(waitedMs / 1000).toFixed(1)} s the partner made ${plural(withheld.length, 'GET /events call')}, not covering them all.`}${reading}`);
}

/**
 * Waits until `done` holds, for as long as the partner keeps reading GET /events: the cap counts from its latest read
 * (or from the start), so a replay still walking on a slow machine is never cut short; only a partner that stopped
 * reading is given up on, and then the grade says what was not seen (not observed). True when `done` held.
 */
async function whileReading(c: Ctx, quietMs: number, done: () => boolean | Promise<boolean>, every = 200): Promise<boolean> {
  const reads = () => journal(c).filter((e) => e.operation === 'listEvents').length;
  let seen = reads();
  let since = performance.now();
  let held = false;
  await until(c, remaining(c), async () => {
    if ((held = await done())) return true;
    const now = reads();
    if (now > seen) [seen, since] = [now, performance.now()];
    return performance.now() - since >= quietMs;
  }, every);
  return held;
}

async function crashRestartDrill(c: Ctx): Promise<void> {
  const { propertyId, crashNights, crashRates, crashSecondRate } = c.choices;
  const acknowledgedFirst = crashNights.length - CRASH_IN_FLIGHT - CRASH_WHILE_DOWN;
  const d = drill(c, 'drill.crash-restart', 'Crash and restart',
    `Rates change on ${crashNights.length} nights of property ${propertyId} (${crashNights[0]} to ${crashNights.at(-1)}): the first night to ${crashRates[0]}, then ${acknowledgedFirst - 1} more nights and the first night again (${crashSecondRate}), each acknowledged; then ${CRASH_IN_FLIGHT} more while delivery flows, and at once SIGKILL to the partner's process group. Delivery is withheld, ${CRASH_WHILE_DOWN} more are recorded, and the same --partner-command is started again; its state probe is read before each GET /events it sends, after it has had time to replay, and once delivery is given back and drained.`,
    'Every event answered 2xx before the kill is still held; the replay after the restart starts at the stored cursor (not at 0, not at the newest sequence) and reads what was not acknowledged; no older value is applied over a newer one (§6.2, §4.6, §6.8, §6.4).');
  const notRun = (why: string) => {
    c.obs.crashNotRun = why;
    d.outcome = 'not_run';
    finish(c, d, why);
  };
  if (!c.partner) return notRun(NEEDS_PARTNER_COMMAND);
  if (remaining(c) < CRASH_MIN_MS) return notRun(`Not run: the run's --duration left ${Math.round(remaining(c) / 1000)} s, the drill needs ${CRASH_MIN_MS / 1000} s.`);
  await drained(c);
  const events: CrashEvent[] = [];
  const put = async (night: number, rate: number) => {
    await c.stage.staff('PUT', `/properties/${propertyId}/rates`, { from: crashNights[night], to: crashNights[night], base_rate: rate });
    const sequence = (await integration(c)).webhook.last_sequence;
    events.push({ sequence, date: crashNights[night]!, base_rate: rate, acknowledged: false });
    return sequence;
  };
  const acknowledged = async () => new Set((await c.stage.deliveries(c.integrationId)).filter((x) => x.sequence !== null && x.status !== null && x.status >= 200 && x.status < 300).map((x) => x.sequence!));
  // What the partner had acknowledged when the drill began (delivery is in order, §6.2): its stored cursor is not below it.
  const floor = Math.max(0, ...await acknowledged());
  const allAcknowledged = async () => {
    const acked = await acknowledged();
    return events.every((e) => acked.has(e.sequence));
  };
  // The first night acknowledged before it changes again, so its first event is delivered, not superseded (§3.3).
  await put(0, crashRates[0]!);
  let ok = await until(c, capped(c, STEP_WAIT_MS), allAcknowledged, 100);
  for (let i = 1; ok && i < acknowledgedFirst; i++) await put(i, crashRates[i]!);
  if (ok) await put(0, crashSecondRate);
  ok = ok && await until(c, capped(c, STEP_WAIT_MS), allAcknowledged, 100);
  if (!ok) return notRun(`Not run: the partner did not acknowledge the drill's first ${events.length} deliveries within ${capped(c, STEP_WAIT_MS) / 1000} s.`);
  for (let i = acknowledgedFirst; i < acknowledgedFirst + CRASH_IN_FLIGHT; i++) await put(i, crashRates[i]!);
  const killedAt = c.stage.now();
  await c.partner.current.kill();
  await c.stage.staff('POST', `/integrations/${c.integrationId}/pause`, undefined, IDEMPOTENT);
  c.log(`  SIGKILL sent to the partner's process group; delivery withheld`);
  // The delivery the kill cut off ends in an error; then what was acknowledged is settled.
  const inFlight = events.slice(-CRASH_IN_FLIGHT).map((e) => e.sequence);
  await until(c, capped(c, STEP_WAIT_MS), async () => {
    for (const s of inFlight) if ((await c.stage.event(c.integrationId, s, c.file.current.apiKey))?.status === 'delivering') return false;
    return true;
  }, 100);
  for (let i = acknowledgedFirst + CRASH_IN_FLIGHT; i < crashNights.length; i++) await put(i, crashRates[i]!);
  const acked = await acknowledged();
  for (const e of events) e.acknowledged = acked.has(e.sequence);
  const highest = Math.max(floor, ...[...acked].filter((s) => s <= events.at(-1)!.sequence));
  const latest = (await integration(c)).webhook.last_sequence;

  const newest = (date: string) => [...events].reverse().find((e) => e.date === date)!;
  const read = async (night: number, when: string): Promise<StateCheck> => {
    const date = crashNights[night]!;
    const check: StateCheck = { when, property_id: propertyId, type: 'rates', date, field: 'base_rate', expected: newest(date).base_rate, older: night === 0 ? crashRates[0] : null, held: undefined };
    try {
      const held = await c.stateProbe!({ property_id: propertyId, type: 'rates', date });
      check.held = held === null ? undefined : held.base_rate;
    } catch (e) {
      check.error = (e as Error).message;
    }
    return check;
  };
  const readAll = async (when: string) => Promise.all(crashNights.map((_, i) => read(i, when)));
  const duringReplay: StateCheck[] = [];
  // §6.2: what was acknowledged is stored; read before the first GET /events, before any replay can repair it.
  let beforeReplay: StateCheck[] | undefined;
  if (c.stateProbe) {
    c.stage.beforeEventsPage(async () => {
      if (beforeReplay === undefined) beforeReplay = await readAll('before its first GET /events after the restart');
      duringReplay.push(await read(0, `before GET /events call ${duringReplay.length + 1} after the restart`));
    });
  }

  const restartedAt = c.stage.now();
  c.partner.current = c.partner.start();
  let readyAt: number | null = null;
  await until(c, capped(c, RESTART_READY_MS), async () => {
    const body = pingBody({ id: c.integrationId, slug: c.slug }, latest, c.stage.stamp());
    const answer = await deliver({ ...c.probeCtx, timeoutMs: 2_000 }, { name: 'restart-ping', body, signature: signed(secrets(c), Math.floor(c.stage.now() / 1000), body), integrationHeader: c.slug });
    if (answer.status !== null && answer.status >= 200 && answer.status < 300) readyAt = c.stage.now();
    return readyAt !== null;
  }, 250);
  const waitStart = performance.now();
  const unacknowledged = crashNights.map((_, i) => i).filter((i) => !newest(crashNights[i]!).acknowledged);
  if (readyAt !== null) {
    // Until it has read what it had not acknowledged (journal) and holds it (state probe), or it shows it will not
    // (the pause read twice by GET /me with no replay between), or it stopped reading GET /events for the cap.
    const record = { propertyId, killedAt, acknowledged: highest, latest, events };
    await whileReading(c, CRASH_REPLAY_WAIT_MS, async () => {
      const log = c.stage.journal(c.integrationId, killedAt);
      if (log !== null && pauseSeenWithoutReplay(log, restartedAt, c.stage.now()) !== null) return true;
      if (log !== null && notYetRead(record, log, []).length > 0) return false;
      if (!c.stateProbe) return log !== null;
      return (await Promise.all(unacknowledged.map((i) => read(i, '')))).every((x) => x.held === x.expected);
    }, 250);
  }
  const waitedMs = Math.round(performance.now() - waitStart);
  const beforeResume = c.stateProbe ? await readAll('after the restart, before delivery resumed') : [];
  c.stage.beforeEventsPage(null);
  await c.stage.staff('POST', `/integrations/${c.integrationId}/resume`, undefined, IDEMPOTENT);
  const resumedAt = c.stage.now();
  await drained(c);
  const final = c.stateProbe ? await readAll('at the end of the drill (delivery resumed and drained)') : [];
  c.obs.crash = { propertyId, floor, killedAt, acknowledged: highest, latest, restartedAt, readyAt, resumedAt, waitedMs, events, ...(beforeReplay ? { beforeReplay } : {}), duringReplay, beforeResume, final };
  const first = c.stage.journal(c.integrationId, restartedAt)?.find((e) => e.operation === 'listEvents' && e.cursor);
  finish(c, d, `Killed with ${crashCounts(c.obs.crash)}; ${readyAt === null
    ? `started again, it did not answer a signed ping within ${capped(c, RESTART_READY_MS) / 1000} s.`
    : `started again, it answered a ping after ${((readyAt - restartedAt) / 1000).toFixed(1)} s${first ? `; its first GET /events read from after_sequence ${first.cursor!.after_sequence}` : c.stage.kind === 'running' ? '' : '; it sent no GET /events'}${c.stateProbe ? `; at the end it held ${final.filter((x) => x.held === x.expected).length} of ${final.length} nights as the platform does` : ''}.`}`);
}

async function olderEvent(c: Ctx): Promise<void> {
  if (c.xSequence === null) return;
  const older = await c.stage.event(c.integrationId, c.xSequence, c.file.current.apiKey);
  if (!older) return;
  await probe(c, { name: 'older-event', body: older.body, signature: signed(secrets(c), Math.floor(c.stage.now() / 1000), older.body), integrationHeader: c.slug });
  await checkState(c, 'after the older event was re-sent', true);
}

/**
 * Reads the partner's copy of the outage drill's night, with the moment of
 * the read (what it could have fetched by then: shown.ts judges it). A read
 * between replay pages is taken as it is (the pages before it are applied);
 * any other read (`settle`) waits, bounded, for the copy to show the newest
 * value, so a page fetched an instant before is not mistaken for one the
 * partner had time to apply.
 */
async function checkState(c: Ctx, when: string, settle = false): Promise<void> {
  if (!c.stateProbe) return;
  const date = c.choices.ratesWindow.from;
  const once = async (): Promise<StateCheck> => {
    const check: StateCheck = {
      when, property_id: c.choices.propertyId, type: 'rates', date, field: 'base_rate', expected: c.choices.rateY, older: c.choices.rateX, held: undefined,
      at: c.stage.now(), afterCall: lastN(c), ...(c.ySequence === null ? {} : { sequence: c.ySequence }), ...(c.xSequence === null ? {} : { olderSequence: c.xSequence }),
    };
    try {
      const night = await c.stateProbe!({ property_id: c.choices.propertyId, type: 'rates', date });
      check.held = night === null ? undefined : night.base_rate;
    } catch (e) {
      check.error = (e as Error).message;
    }
    return check;
  };
  let check = await once();
  if (settle) await until(c, capped(c, STATE_SETTLE_MS), async () => (check = await once()).held === check.expected, 200);
  c.obs.state.push(check);
  c.log(`  state ${when}: base_rate ${check.error ?? JSON.stringify(check.held)} (newest ${check.expected})`);
}

async function keyRotationDrill(c: Ctx): Promise<void> {
  const d = drill(c, 'drill.key-rotation', 'API key rotation',
    'Staff rotate the API key (the old one is 401 at once); the new key is written to the certification file; order 6 is handed over.',
    'At most one call with the old key (it answers 401); re-read the credentials file and carry on with the new key (§5.3).');
  const before = (await integration(c)).webhook.last_sequence;
  const n = lastN(c);
  const { api_key } = await c.stage.staff<{ api_key: string }>('POST', `/integrations/${c.integrationId}/rotate-api-key`);
  c.obs.keyRotatedAt = c.stage.now();
  c.file.update(() => ({ apiKey: api_key }));
  c.file.addOrder(orderBody(c.runId, 6, c.choices));
  await placed(c, n, before);
  const after = journal(c).filter((e) => e.n > n);
  const retired = after.filter((e) => e.credential === 'retired');
  finish(c, d, c.stage.kind === 'running'
    ? 'Key rotated; which key the partner used cannot be seen on a running simulator.'
    : `${retired.length} call${retired.length === 1 ? '' : 's'} with the old key, ${after.length - retired.length} with the new one${after.some((e) => e.operation === 'createBooking' && e.credential === 'current' && e.status < 300) ? '; order 6 placed with the new key' : ''}.`);
}

async function secretRotationDrill(c: Ctx): Promise<void> {
  const d = drill(c, 'drill.secret-rotation', 'Webhook secret rotation',
    'Staff rotate the webhook secret; the certification file lists the new and the old secret. Deliveries are sent with both v1= values in either order, then with the new secret only; the platform then delivers a new event signed with both.',
    'Accept every one of them (2xx): any v1= matching any secret held is enough (§5.4); take the new secret from the file.');
  const old = c.file.current.webhookSecret;
  const { webhook_secret: fresh } = await c.stage.staff<{ webhook_secret: string }>('POST', `/integrations/${c.integrationId}/rotate-webhook-secret`);
  c.obs.secretRotatedAt = c.stage.now();
  c.file.update(() => ({ webhookSecret: fresh, webhookSecrets: [fresh, old] }));
  const newest = await newestEvent(c);
  const body = newest?.body ?? pingBody({ id: c.integrationId, slug: c.slug }, 0, c.stage.stamp());
  const t = () => Math.floor(c.stage.now() / 1000);
  const answers = [
    await probe(c, { name: 'rotation-new-old', body, signature: signed([fresh, old], t(), body), integrationHeader: c.slug }),
    await probe(c, { name: 'rotation-old-new', body, signature: signed([old, fresh], t(), body), integrationHeader: c.slug }),
    await probe(c, { name: 'rotation-new-only', body, signature: signed([fresh], t(), body), integrationHeader: c.slug }),
  ];
  const before = (await integration(c)).webhook.last_sequence;
  await c.stage.staff('PUT', `/properties/${c.choices.propertyId}/rates`, { from: c.choices.rotationNight, to: c.choices.rotationNight, base_rate: 6500 });
  const sequence = before + 1;
  let delivered: DeliveryEvidence | undefined;
  await until(c, capped(c, STEP_WAIT_MS), async () => Boolean(delivered = (await c.stage.deliveries(c.integrationId)).find((x) => x.sequence === sequence)), 150);
  finish(c, d, `Probes answered ${answers.map((a) => `${a.name} ${a.status ?? 'none'}`).join(', ')}; the platform's delivery of sequence ${sequence} (two v1= values) answered ${delivered ? (delivered.status ?? delivered.error) : 'nothing yet'}.`);
}
