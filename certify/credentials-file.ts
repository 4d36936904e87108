/**
 * The certification file: what the partner system is handed for a run, and
 * how the certifier talks to it while the run goes on (a contract,
 * docs/certification.md):
 *
 * - `baseUrl`, `apiKey`: the API and the key to call it with;
 * - `webhookSecrets`: every secret a delivery may be signed with now, newest
 *   first (`webhookSecret` is the newest); `integration.slug` is what
 *   X-Service-Integration carries;
 * - `orders`: bookings guests made on the partner's channel, in order; the
 *   partner places each one once, the way its system places bookings;
 * - `revision` rises on every change;
 * - `finished` turns true when the run is over (however it ended).
 *
 * The partner re-reads the file after any 401 and whenever a delivery does
 * not verify with the secrets it holds (that is how rotated credentials
 * reach it, §5.2: shown once, by staff), and at least once a second for new
 * orders. The file is replaced atomically (write, then rename) with mode 0600.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** A POST /bookings body (§4.5). */
export interface BookingBody {
  external_booking_id: string;
  property: { doorloom_id: number };
  units: Array<{ adults: number; children?: number }>;
  check_in: string;
  check_out: string;
  guest: { name: string; mobile: string };
  pricing: { total: number; currency?: 'INR' };
  source?: { channel: string };
  [field: string]: unknown;
}

export interface Order {
  n: number;
  external_booking_id: string;
  /** A valid POST /bookings body for the stay; send it as is, or your own body for the same stay. */
  request: BookingBody;
}

export interface CoveredProperty {
  doorloom_id: number;
  external_id: string;
  units: Array<{ inventory_id: number; external_unit_id: string | null; active: boolean }>;
}

export interface CertificationFile {
  certification: { runId: string; apiVersion: string; readme: string };
  revision: number;
  baseUrl: string;
  integration: { id: number; slug: string };
  apiKey: string;
  webhookSecret: string;
  webhookSecrets: string[];
  properties: CoveredProperty[];
  orders: Order[];
  /** True once the run is over: a partner deployed for the run alone may stop (the reference partner's CLI does). */
  finished?: boolean;
}

/** Writes the file atomically, readable by its owner only. */
export function writeCertificationFile(path: string, file: CertificationFile): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** Reads and checks the file (partners and test doubles use this too). */
export function readCertificationFile(path: string): CertificationFile {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<CertificationFile>;
  for (const field of ['baseUrl', 'apiKey', 'webhookSecret'] as const) {
    if (typeof raw[field] !== 'string') throw new Error(`${path}: ${field} is missing; is this a certification file written by npm run certify?`);
  }
  if (!Array.isArray(raw.webhookSecrets) || !Array.isArray(raw.orders) || typeof raw.integration?.slug !== 'string') {
    throw new Error(`${path}: webhookSecrets, orders and integration.slug are required`);
  }
  return raw as CertificationFile;
}

/** The certifier's handle on the file: every change bumps the revision and rewrites it. */
export class CertificationFileWriter {
  private file: CertificationFile;

  constructor(readonly path: string, initial: Omit<CertificationFile, 'revision'>) {
    this.file = { ...initial, revision: 1 };
    writeCertificationFile(path, this.file);
  }

  get current(): CertificationFile {
    return this.file;
  }

  update(change: (f: CertificationFile) => Partial<CertificationFile>): void {
    this.file = { ...this.file, ...change(this.file), revision: this.file.revision + 1 };
    writeCertificationFile(this.path, this.file);
  }

  addOrder(request: BookingBody): Order {
    const order: Order = { n: this.file.orders.length + 1, external_booking_id: request.external_booking_id, request };
    this.update((f) => ({ orders: [...f.orders, order] }));
    return order;
  }
}
