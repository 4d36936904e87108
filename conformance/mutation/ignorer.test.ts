/**
 * The ignorer leaves out exactly the simulator's fault and reading switches
 * with the code only they run, and the wording of messages, through
 * Stryker's own instrumenter (what `npm run mutation` does with it), and
 * mutates everything else.
 */
import { Instrumenter } from '@stryker-mutator/instrumenter';
import { describe, expect, it } from 'vitest';
import { strykerPlugins } from './ignorer.mjs';

const quiet = new Proxy({}, { get: (_, name) => (String(name).startsWith('is') ? () => false : () => undefined) });

/** The mutants of `body` (inside a function), as `line replacement` with `IGNORED` where the plugin left one out. */
async function mutants(body: string, before = ''): Promise<string[]> {
  const source = `${before}export function f(ctx: any, input: any, faults: any, readings: any, invalid: any, success: any, DomainError: any) {\n${body}\n}`;
  const ignorer = strykerPlugins[0]!.value;
  const { mutants } = await new Instrumenter(quiet as never).instrument([{ name: 'f.ts', content: source, mutate: true }], { plugins: null, excludedMutations: [], ignorers: [ignorer] });
  return mutants.map((m) => `${m.status === 'Ignored' ? 'IGNORED ' : ''}${m.mutatorName} ${m.replacement}`);
}

describe('the switches-and-wording ignorer', () => {
  it('a fault switch and the branch it guards are ignored; the branch it does not guard is mutated', async () => {
    const got = await mutants("const total = ctx.faults?.has('total-rounded') ? input.total * 2 : input.total - 1;\nreturn total;");
    expect(got).toContain('IGNORED StringLiteral ""');
    expect(got).toContain('IGNORED ArithmeticOperator input.total / 2');
    expect(got).toContain('ArithmeticOperator input.total + 1');
  });

  it('an if guarded by a fault: its condition and its body are ignored', async () => {
    const got = await mutants("if (faults.has('balance-ignores-advance')) input.balance = input.total + 1;\nreturn input;");
    expect(got.filter((g) => !g.startsWith('IGNORED ') && !g.startsWith('BlockStatement'))).toEqual([]);
    expect(got).toContain('IGNORED ArithmeticOperator input.total - 1');
  });

  it('a negated switch in a condition: the switch is ignored, the rest of the condition and the body are mutated', async () => {
    const got = await mutants("if (input.a !== undefined && !ctx.faults?.has('duplicate-creates-booking')) return 1;\nreturn 2;");
    expect(got).toContain("LogicalOperator input.a !== undefined || !ctx.faults?.has('duplicate-creates-booking')");
    expect(got).toContain('EqualityOperator input.a === undefined');
    expect(got).toContain("IGNORED BooleanLiteral ctx.faults?.has('duplicate-creates-booking')");
  });

  it('a switch as one operand of ||: only that operand is ignored', async () => {
    const got = await mutants("return input.since === null || input.x >= input.since || faults?.has('updated-since-ignored') === true;");
    expect(got).toContain('EqualityOperator input.x > input.since');
    expect(got).toContain('LogicalOperator input.since === null && input.x >= input.since');
    expect(got).toContain("IGNORED EqualityOperator faults?.has('updated-since-ignored') !== true");
  });

  it('a reading switch is ignored like a fault; any other .has() is mutated', async () => {
    const got = await mutants("const a = readings.has('other-reading') ? 1 + input.x : 0;\nconst b = input.set.has('x') ? 2 : 3;\nreturn a + b;");
    expect(got).toContain('IGNORED ArithmeticOperator 1 - input.x');
    expect(got).toContain('StringLiteral ""');
    expect(got.filter((g) => g === 'IGNORED StringLiteral ""')).toHaveLength(1);
  });

  it('message wording is ignored; the field a refusal names, its code and the data are mutated', async () => {
    const got = await mutants("if (input.n > 30) throw invalid('check_out', `The stay may be at most ${30} nights.`);\nif (!input.ok) throw new DomainError('UNIT_INACTIVE', { units: ['inactive'] }, 'A unit is off.');\nreturn { envelope: success('Booking created.', input), other: { message: 'Fine.' } };");
    expect(got).toContain('StringLiteral ""');
    // The envelope's message, success's text, the other `message:` and the field error's text ('inactive').
    expect(got.filter((g) => g === 'IGNORED StringLiteral ""')).toHaveLength(4);
    expect(got).toContain('IGNORED StringLiteral ``');
    // The field a refusal names, its code and the DomainError's code.
    expect(got.filter((g) => g === 'StringLiteral ""')).toHaveLength(2);
    expect(got).toContain('EqualityOperator input.n >= 30');
  });

  it("a field error's text is wording; its field path (a computed key) and an errors value that is data are mutated", async () => {
    const got = await mutants("throw new DomainError('UNIT_NOT_MAPPED', { [`units.${input.i}`]: ['Unknown unit.'], retry_after: ['x'].length }, undefined);");
    expect(got.filter((g) => g === 'IGNORED StringLiteral ""')).toHaveLength(1);
    expect(got).toContain('StringLiteral ``');
    expect(got.filter((g) => g === 'StringLiteral ""')).toHaveLength(2);
  });

  it('the values of the DEFAULT_MESSAGE table are wording; another table is data', async () => {
    const got = await mutants('return [DEFAULT_MESSAGE, STATUS_OF];', "const DEFAULT_MESSAGE = { NOT_FOUND: 'Not found.' };\nconst STATUS_OF = { NOT_FOUND: 'x' };\n");
    expect(got).toContain('IGNORED StringLiteral ""');
    expect(got).toContain('StringLiteral ""');
  });
});
