/**
 * Preflight: before any check, make sure the run is pointed at this API with
 * credentials that are what the configuration says they are. A wrong key, a
 * dead host, a host that is not this API or an API switched off (§5.6) is a
 * setup mistake, never non-conformance: it ends the run with a SetupError
 * (the CLI prints `error: …` and exits 2) before any check is judged.
 */
import { loadContract } from '../spec/contract.ts';
import { API_VERSION } from '../spec/document-tables.ts';
import { type NoAnswer, sendResending } from './resend.ts';
import { unreachableCause } from './unreachable.ts';
import { offeredActions } from './control.ts';

/** The run cannot start: the message names the cause and what to change. */
export class SetupError extends Error {
  override name = 'SetupError';
  /** The credential the platform refused, when that was the mistake (the CLI points to a rotated one it kept). */
  constructor(message: string, readonly refused?: string) {
    super(message);
  }
}

/** The URL gave no answer at all (refused, reset, timed out): a SetupError a long-running caller may only warn about. */
export class UnreachableError extends SetupError {}

/** What a live target's credentials turned out to be. */
export interface PreflightResult {
  /** `GET /me` data of the main integration. */
  me: MeView;
  /** `GET /me` data of the second integration (otherApiKey), when given. */
  other: MeView | null;
  /** Actions the control plane offers, when one is configured. */
  controlActions: string[] | null;
  /** The `Date` header of the main `GET /me` (the platform's clock), when it had one. */
  date: string | null;
}

export interface MeView {
  id: number;
  slug: string;
  status: string;
  api_version: string;
  horizon_days: number;
  webhook: { configured: boolean; url: string | null; last_sequence: number; event_types: string[] };
}

export interface PreflightConfig {
  baseUrl: string;
  apiKey: string;
  webhookSecret?: string;
  otherApiKey?: string;
  disabledApiKey?: string;
  nonIntegrationToken?: string;
  properties?: number[];
  controlUrl?: string;
  controlToken?: string;
  /** Milliseconds to wait for an answer (default ANSWER_CAP_MS). */
  timeoutMs?: number;
}

/**
 * How long preflight waits for one answer before it calls the host unreachable (exit 2, a setup problem). A hang
 * guard for a host that takes the connection and never answers, not a speed target: a refused or unknown host fails at
 * once whatever it is, and a loaded machine was seen to keep a healthy simulator's answer past 15 s (issue 38).
 */
const ANSWER_CAP_MS = 120_000;

interface Answer {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

async function call(url: string, token: string | null, timeoutMs: number, what: string): Promise<Answer> {
  // A GET: sent once more when its connection closed before any answer (resend.ts); each send has its own time-out.
  const headers: Record<string, string> = token === null ? { Accept: 'application/json' } : { Authorization: `Bearer ${token}`, Accept: 'application/json' };
  const res = await sendResending({ method: 'GET' }, () => fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })).catch((e: NoAnswer) => {
    throw new UnreachableError(`cannot reach ${url}${what ? ` (${what})` : ''}: ${unreachableCause(e.cause)}${e.note}`);
  });
  const text = await res.text();
  let body: any;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, text, body, headers: res.headers };
}

function snippet(a: Answer): string {
  const type = a.headers.get('content-type') ?? 'no content type';
  const shown = a.text.replace(/\s+/g, ' ').slice(0, 120);
  return `${a.status} (${type}) ${shown === '' ? 'with an empty body' : JSON.stringify(shown)}${a.text.length > 120 ? '…' : ''}`;
}

function codeOf(a: Answer): string {
  return `${a.status}${typeof a.body?.code === 'string' ? ` ${a.body.code}` : ''}`;
}

/** A role's `GET /me`, judged as a setup step: anything but the expected answer is the configuration's fault. */
async function me(config: PreflightConfig, token: string, role: string): Promise<{ answer: Answer; view: MeView | null; url: string }> {
  const url = `${config.baseUrl.replace(/\/$/, '')}/me`;
  const answer = await call(url, token, config.timeoutMs ?? ANSWER_CAP_MS, role === 'apiKey' ? '' : role);
  if (answer.status === 404 && answer.text === '') {
    throw new SetupError(`the partner API at ${config.baseUrl} answers a bare 404: switched off (§5.6) or not a partner API root (it should end in /api/integrations/v1)`);
  }
  // A role credential refused with 401 may be a wrong credential or a platform that answers a disabled
  // integration or a non-integration token wrongly (§5.5): its check runs and says both (issue 25 item 5).
  if (answer.status === 401 && (role === 'disabledApiKey' || role === 'nonIntegrationToken')) return { answer, view: null, url };
  if (answer.status === 401) {
    throw new SetupError(`the ${role === 'apiKey' ? 'API key' : role} was refused (${codeOf(answer)}) by GET ${url}: check the key (a rotated-out key is refused too, §5.3)`, role);
  }
  if (answer.status === 200) {
    const contract = loadContract();
    const problems = contract.checkResponse(contract.operation('getMe'), 200, answer.body ?? answer.text, Object.fromEntries(answer.headers));
    if (answer.body?.success !== true || typeof answer.body?.data?.api_version !== 'string') {
      throw new SetupError(`GET ${url} answered ${snippet(answer)}, not the /me envelope of a partner API: is --target the API root (…/api/integrations/v1)?`);
    }
    // Another api_version is a breach of §2.1 and §9 (schema.read-operations-conform fails naming 9.R1a), not a setup
    // mistake: a release can ship it. Likewise a /me that breaks its schema is a conformance finding.
    void problems;
    return { answer, view: answer.body.data as MeView, url };
  }
  return { answer, view: null, url };
}

/** Runs every setup step for a live target; throws SetupError naming the first mistake. */
export async function preflight(config: PreflightConfig): Promise<PreflightResult> {
  let base: URL;
  try {
    base = new URL(config.baseUrl);
  } catch {
    throw new SetupError(`--target ${JSON.stringify(config.baseUrl)} is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new SetupError(`--target must be an http or https URL, got ${base.protocol}`);
  if (config.webhookSecret !== undefined && !config.webhookSecret.startsWith('whsec_')) {
    throw new SetupError('the webhook secret does not start with whsec_ (§2.2): is it the API key or a placeholder?');
  }

  const main = await me(config, config.apiKey, 'apiKey');
  if (!main.view) {
    if (main.answer.status === 403 && main.answer.body?.code === 'INTEGRATION_DISABLED') throw new SetupError('the API key belongs to a disabled integration (403 INTEGRATION_DISABLED): pass it as disabledApiKey and give an active integration\'s key');
    if (main.answer.status === 403 && main.answer.body?.code === 'NOT_INTEGRATION_TOKEN') throw new SetupError('the API key is not an integration key (403 NOT_INTEGRATION_TOKEN): pass it as nonIntegrationToken and give an integration\'s key');
    if (main.answer.status === 429) throw new SetupError(`GET ${main.url} is rate limited (429) before the run started: wait ${main.answer.headers.get('retry-after') ?? 'a minute'} s and run again`);
    if (main.answer.status >= 500) throw new SetupError(`GET ${main.url} answered ${snippet(main.answer)}: the deployment is not healthy enough to test`);
    throw new SetupError(`GET ${main.url} answered ${snippet(main.answer)}, not 200: not a partner API root (…/api/integrations/v1), or a proxy in front of it`);
  }

  let other: MeView | null = null;
  if (config.otherApiKey) {
    const o = await me(config, config.otherApiKey, 'otherApiKey');
    if (!o.view) throw new SetupError(`otherApiKey: GET /me answered ${codeOf(o.answer)}; it must be the key of a second, active integration on the same deployment`);
    if (o.view.id === main.view.id) throw new SetupError(`otherApiKey belongs to the same integration (id ${o.view.id}) as the API key; it must be another integration's`);
    other = o.view;
  }
  const roles: [string | undefined, string, string][] = [
    [config.disabledApiKey, 'disabledApiKey', 'INTEGRATION_DISABLED'],
    [config.nonIntegrationToken, 'nonIntegrationToken', 'NOT_INTEGRATION_TOKEN'],
  ];
  for (const [token, role, code] of roles) {
    if (!token) continue;
    const r = await me(config, token, role);
    // The same integration as another credential can only be the operator's mistake; another integration answering
    // 200 may be a platform that ignores the role (a breach its auth check reports, noting the credential may be wrong).
    if (r.view && (r.view.id === main.view.id || r.view.id === other?.id)) throw new SetupError(`${role}: GET /me answered 200 for integration ${r.view.id}, the same integration as ${r.view.id === main.view.id ? 'the API key' : 'otherApiKey'}; it must be ${role === 'disabledApiKey' ? 'the key of a disabled integration' : 'a valid bearer token that is not an integration key'} (the platform answers 403 ${code} to it)`);
    const otherCode = code === 'INTEGRATION_DISABLED' ? 'NOT_INTEGRATION_TOKEN' : 'INTEGRATION_DISABLED';
    if (r.answer.status === 403 && r.answer.body?.code === otherCode) throw new SetupError(`${role}: GET /me answered 403 ${otherCode}; that credential is the other role (${otherCode === 'INTEGRATION_DISABLED' ? 'disabledApiKey' : 'nonIntegrationToken'})`);
  }

  for (const id of config.properties ?? []) {
    const today = new Date().toISOString().slice(0, 10);
    const url = `${config.baseUrl.replace(/\/$/, '')}/properties/${id}/availability?from=${today}&to=${today}`;
    const a = await call(url, config.apiKey, config.timeoutMs ?? ANSWER_CAP_MS, `property ${id}`);
    if (a.status === 404) throw new SetupError(`--property ${id} is not covered by the integration (its availability snapshot answers ${codeOf(a)}): name a property the integration covers`);
  }

  let controlActions: string[] | null = null;
  if (config.controlUrl) {
    if (!config.controlToken) throw new SetupError('--control-url needs --control-token (or controlToken in --config, or PARTNER_CONTROL_TOKEN)');
    const url = `${config.controlUrl.replace(/\/$/, '')}/capabilities`;
    const a = await call(url, config.controlToken, config.timeoutMs ?? ANSWER_CAP_MS, 'control plane');
    if (a.status === 401 || a.status === 403) throw new SetupError(`the control token was refused (${codeOf(a)}) by GET ${url}`);
    const actions = offeredActions(a.body);
    if (a.status !== 200 || actions === null) {
      throw new SetupError(`GET ${url} answered ${snippet(a)}, not a control-plane capabilities answer ({success, data: {actions: [...]}})`);
    }
    controlActions = actions;
  }
  return { me: main.view, other, controlActions, date: main.answer.headers.get('date') };
}

/** The path of the API root below an origin (§ Conventions: paths are relative to `{base_url}/api/integrations/v1`). */
const API_ROOT_PATH = '/api/integrations/v1';

/**
 * Whether `baseUrl` is a partner API root, asked without a credential (a proxy such as watch holds none): `GET /me`
 * is on every API root and needs a key (§5.1), so a partner API answers it in its envelope (401 UNAUTHENTICATED);
 * a 404 of any kind, or an answer that is not the envelope, is not an API root. Throws SetupError naming the
 * mistake, and the API root below it when the URL is the origin of one; UnreachableError when nothing answered;
 * returns a note when the answer cannot tell (5xx: a deployment still starting, or unhealthy).
 */
export async function probeApiRoot(baseUrl: string, o: { timeoutMs?: number; flag?: string } = {}): Promise<{ note?: string }> {
  const flag = o.flag ?? '--target';
  const timeoutMs = o.timeoutMs ?? ANSWER_CAP_MS;
  const root = baseUrl.replace(/\/$/, '');
  const url = `${root}/me`;
  const answer = await call(url, null, timeoutMs, '');
  if (answer.status >= 500) return { note: `GET ${url} answered ${snippet(answer)}: cannot tell yet whether ${root} is the partner API root` };
  const envelope = typeof answer.body === 'object' && answer.body !== null && typeof answer.body.success === 'boolean';
  if (answer.status !== 404 && envelope) return {};
  let hint = 'it should end in /api/integrations/v1';
  if (!new URL(root).pathname.endsWith(API_ROOT_PATH)) {
    // The origin (or another path) of a deployment: say where its API root is, when it answers there.
    const below = `${root}${API_ROOT_PATH}`;
    const there = await call(`${below}/me`, null, timeoutMs, '').catch(() => null);
    if (there && there.status !== 404 && there.status < 500 && typeof there.body?.success === 'boolean') hint = `its API root answers at ${below}: give ${flag} ${below}`;
  }
  if (answer.status === 404 && answer.text === '') throw new SetupError(`${flag} ${root}: GET ${url} answers a bare 404: not a partner API root (${hint}), or the API is switched off (§5.6)`);
  throw new SetupError(`${flag} ${root} is not a partner API root: GET ${url} answered ${snippet(answer)}, where a partner API answers 401 UNAUTHENTICATED in its envelope (§5.1; ${hint})`);
}
