/**
 * The §4.5 body table, field by field: one create with every optional field
 * at its documented maximum is accepted, and every single-field violation the
 * contract implies for those fields is refused naming the field, each field
 * credited to its own clause. Deterministic: every violation, every run.
 */
import { loadContract } from '../../spec/contract.ts';
import { defineCheck, expectStatus } from '../check.ts';
import { bodyViolations } from '../arbitraries/requests.ts';
import { bookingBody, createBooking, describe, farStay, writableProperty } from './support.ts';

const suite = 'validation';
const contract = loadContract();
const createOp = contract.operation('createBooking');

/** Field path → the clause of the §4.5 body table that states its rule. */
export const FIELD_CLAUSES: Record<string, string> = {
  'property.external_id': '4.5.Q4a',
  'units.0.external_unit_id': '4.5.Q7',
  'units.0.meal_plan': '4.5.Q10',
  'units.0.stay_price': '4.5.Q11',
  'guest.phone_code': '4.5.Q16',
  'guest.mobile': '4.5.Q17',
  'guest.email': '4.5.Q18',
  'guest.country': '4.5.Q19',
  'pricing.includes_gst': '4.5.Q22',
  'payment.status': '4.5.Q24',
  'payment.collected_by': '4.5.Q26',
  'payment.reference': '4.5.Q27',
  'source.channel': '4.5.Q28',
  'source.reference': '4.5.Q29',
  status: '4.5.Q30',
  // Last: a missing or malformed reference (the alias's own length rule is matched first, above).
  property: '4.5.Q4',
};

/** A valid email of exactly 255 characters, each part within RFC 5321 limits (64-character local part, 63-character labels). */
const EMAIL_255 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(59)}.in`;

export const fieldRuleChecks = [
  defineCheck({
    id: 'validation.field-rules', title: 'Every optional field of the create body at its maximum is accepted; each of its violations is 422 naming the field', suite,
    clauses: [...new Set(Object.values(FIELD_CLAUSES)), '3.2.T2', '3.2.R1'], level: 'normative', needs: ['write'],
    async run(ctx) {
      const full = bookingBody(ctx, {
        property: { doorloom_id: writableProperty(ctx) },
        // One unit priced at the whole total: its stay_price is the room money as sent (§4.5 rule 5).
        units: [{ adults: 1, children: 0, meal_plan: 'AP', stay_price: 1000 }],
        ...farStay(ctx, 1),
        guest: { name: 'Conformance Field Rules', phone_code: '+9112345', mobile: '9'.repeat(20), email: EMAIL_255, country: 'C'.repeat(64) },
        pricing: { total: 1000, includes_gst: true },
        payment: { status: 'partial', amount_collected: 100, collected_by: 'host', reference: 'R'.repeat(128) },
        source: { channel: 'S'.repeat(64), reference: 'F'.repeat(128) },
        status: 'pending',
      });
      const violations = [
        ...bodyViolations('createBooking', full).filter((v) => Object.keys(FIELD_CLAUSES).some((p) => v.path === p || v.path.startsWith(`${p}.`))),
        // Aliases: a valid one cannot be made up, an over-long one is refused by the field rule before any lookup.
        { path: 'property.external_id', description: 'property.external_id: 129 characters, above maxLength 128', apply: (b: any) => ({ ...b, property: { external_id: 'P'.repeat(129) } }) },
        { path: 'units.0.external_unit_id', description: 'units.0.external_unit_id: 129 characters, above maxLength 128', apply: (b: any) => ({ ...b, units: [{ ...b.units[0], external_unit_id: 'U'.repeat(129) }] }) },
      ];
      const proven = new Set<string>();
      for (const v of violations) {
        const invalid = { ...(v.apply(full) as Record<string, unknown>), external_booking_id: ctx.uniqueId('bk') };
        const clause = FIELD_CLAUSES[Object.keys(FIELD_CLAUSES).find((p) => v.path === p || v.path.startsWith(`${p}.`))!]!;
        const res = await createBooking(ctx, invalid);
        const code = contract.bodyRefusal(createOp, invalid)?.code ?? 'VALIDATION_FAILED';
        expectStatus(ctx, res, 422, code, clause, `a body with ${v.description}`);
        if (code === 'VALIDATION_FAILED' && !res.body?.errors?.[v.path]) ctx.fail('WrongErrorField', `errors ${JSON.stringify(res.body?.errors)} for ${v.description}`, `the refusal names ${v.path}`, clause);
        proven.add(clause);
      }
      const missing = [...new Set(Object.values(FIELD_CLAUSES))].filter((c) => !proven.has(c));
      if (missing.length > 0) throw new Error(`the contract implies no violation for the fields of ${missing.join(', ')}: spec/openapi.yaml lost a field rule`);
      const created = await createBooking(ctx, full);
      if (created.status !== 201) ctx.fail('MaximaRefused', `${describe(created)} ${JSON.stringify(created.body?.errors ?? {})}`, 'every optional field at its maximum accepted', '4.5.Q30');
      if (created.body.data.status !== 'pending') ctx.fail('StatusNotKept', `status ${created.body.data.status}`, 'status pending as sent', '3.2.T2');
    },
  }),
];
