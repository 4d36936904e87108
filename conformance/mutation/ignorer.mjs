// @ts-check
/**
 * Stryker ignore-plugin `switches-and-wording` (stryker.config.mjs): leaves
 * out the mutants of the simulator's own configuration switches and the
 * wording of its messages, and only those.
 *
 * - A deliberate fault, `faults.has('name')` (any receiver ending in
 *   `faults`): the mutation run starts the simulator with no fault, so
 *   turning a switch off changes nothing, and turning it on is that fault,
 *   which `npm run conformance -- --mutants` already proves caught (63/63).
 *   The code only a fault runs (the branch the switch guards) never runs.
 * - Another reading of the document, `readings.has('name')`: the run follows
 *   the default reading; `conformance/readings.test.ts` runs the catalogue
 *   under each other one.
 * - The wording of a message: the `message` of an envelope and each
 *   field error of a 422 are strings the document does not word (§7,
 *   ErrorEnvelope and FieldErrors in spec/openapi.yaml), so a check cannot
 *   hold a platform to a text. Codes, statuses and field paths stay mutated.
 *
 * What stays mutated: everything the switch does not guard, including the
 * other operands of a condition that also holds a switch
 * (`since === null || … || faults.has(…) === true`: the `||` and the
 * comparisons are mutated).
 *
 * Plain JavaScript: Stryker loads plugins in its own processes, without tsx.
 */
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** @typedef {{ type: string, [key: string]: any }} Node */

const REASONS = {
  fault: 'deliberate-fault switch: off in the mutation run; on, it is the fault list\'s own breach (conformance --mutants proves each caught)',
  reading: 'another reading of the document: off in the mutation run; conformance/readings.test.ts runs the catalogue under each',
  message: 'message wording: the document makes an envelope\'s message and each field error a string, never a text (§7)',
};

/** Where a message's text stands: the callee (or class) and the argument's index. */
const MESSAGE_ARGUMENTS = [
  { callee: 'invalid', index: 1 },
  { callee: 'success', index: 0 },
  { callee: 'DomainError', index: 2 },
];

/**
 * A string or template that is a message's wording: an argument in MESSAGE_ARGUMENTS,
 * a `message:` property, a field error's text in the errors object of a DomainError,
 * or a value of the DEFAULT_MESSAGE table.
 * @param {{ node: Node, key: string | number | null, listKey?: string | null, parentPath: { node: Node, parentPath: any } | null }} path
 */
export function isMessageText(path) {
  const node = path.node;
  if (node.type !== 'StringLiteral' && node.type !== 'TemplateLiteral') return false;
  const parent = path.parentPath?.node;
  if (!parent) return false;
  if ((parent.type === 'CallExpression' || parent.type === 'NewExpression') && parent.callee.type === 'Identifier' && path.listKey === 'arguments') {
    return MESSAGE_ARGUMENTS.some((m) => m.callee === parent.callee.name && m.index === path.key);
  }
  // A field error's text: `new DomainError(code, { field: ['text'] })`, each value an array of messages (§7).
  if (parent.type === 'ArrayExpression' && path.listKey === 'elements') {
    const array = path.parentPath;
    const property = array?.parentPath;
    const object = property?.parentPath;
    const call = object?.parentPath?.node;
    return array?.key === 'value' && property?.node.type === 'ObjectProperty' && object?.node.type === 'ObjectExpression'
      && call?.type === 'NewExpression' && call.callee.type === 'Identifier' && call.callee.name === 'DomainError' && object.listKey === 'arguments' && object.key === 1;
  }
  if (parent.type === 'ObjectProperty' && path.key === 'value') {
    const key = parent.key.type === 'Identifier' ? parent.key.name : parent.key.type === 'StringLiteral' ? parent.key.value : undefined;
    if (key === 'message') return true;
    const table = path.parentPath?.parentPath?.parentPath?.node;
    return table?.type === 'VariableDeclarator' && table.id.type === 'Identifier' && table.id.name === 'DEFAULT_MESSAGE';
  }
  return false;
}

/**
 * `faults.has('x')`, `ctx.faults?.has('x')`, `this.deps.readings?.has('x')`…: which switch, or undefined.
 * @param {Node | null | undefined} node
 * @returns {'fault' | 'reading' | undefined}
 */
export function switchKind(node) {
  if (!node || (node.type !== 'CallExpression' && node.type !== 'OptionalCallExpression')) return undefined;
  const callee = node.callee;
  if ((callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') || callee.computed) return undefined;
  if (callee.property.type !== 'Identifier' || callee.property.name !== 'has') return undefined;
  if (node.arguments.length !== 1 || node.arguments[0].type !== 'StringLiteral') return undefined;
  const receiver = callee.object;
  const name = receiver.type === 'Identifier' ? receiver.name
    : (receiver.type === 'MemberExpression' || receiver.type === 'OptionalMemberExpression') && !receiver.computed && receiver.property.type === 'Identifier' ? receiver.property.name
      : undefined;
  return name === 'faults' ? 'fault' : name === 'readings' ? 'reading' : undefined;
}

/**
 * A switch as a condition: the call, `!call`, or `call === true` / `call === false`.
 * @param {Node} node
 */
function switchTest(node) {
  if (node.type === 'UnaryExpression' && node.operator === '!') return switchKind(node.argument);
  if (node.type === 'BinaryExpression' && (node.operator === '===' || node.operator === '!==') && node.right.type === 'BooleanLiteral') return switchKind(node.left);
  return switchKind(node);
}

/**
 * The expression is truthy only when a switch is on (so what it guards runs only then).
 * @param {Node} node
 * @returns {'fault' | 'reading' | undefined}
 */
export function onlyWhenTruthy(node) {
  if (node.type === 'ParenthesizedExpression' || node.type === 'TSNonNullExpression') return onlyWhenTruthy(node.expression);
  if (switchKind(node)) return switchKind(node);
  if (node.type === 'BinaryExpression' && node.operator === '===' && node.right.type === 'BooleanLiteral' && node.right.value === true) return switchKind(node.left);
  if (node.type === 'UnaryExpression' && node.operator === '!') return onlyWhenFalsy(node.argument);
  if (node.type === 'LogicalExpression' && node.operator === '&&') return onlyWhenTruthy(node.left) ?? onlyWhenTruthy(node.right);
  if (node.type === 'LogicalExpression' && node.operator === '||') return onlyWhenTruthy(node.left) && onlyWhenTruthy(node.right);
  return undefined;
}

/**
 * The expression is falsy only when a switch is on.
 * @param {Node} node
 * @returns {'fault' | 'reading' | undefined}
 */
export function onlyWhenFalsy(node) {
  if (node.type === 'ParenthesizedExpression' || node.type === 'TSNonNullExpression') return onlyWhenFalsy(node.expression);
  if (node.type === 'UnaryExpression' && node.operator === '!') return onlyWhenTruthy(node.argument);
  if (node.type === 'LogicalExpression' && node.operator === '||') return onlyWhenFalsy(node.left) ?? onlyWhenFalsy(node.right);
  if (node.type === 'LogicalExpression' && node.operator === '&&') return onlyWhenFalsy(node.left) && onlyWhenFalsy(node.right);
  return undefined;
}

/**
 * Why the mutants of this node (and everything under it) are left out, or undefined.
 * @param {{ node: Node, key: string | number | null, listKey?: string | null, parentPath: { node: Node, parentPath: any } | null }} path
 * @returns {string | undefined}
 */
export function whyIgnored(path) {
  const node = path.node;
  const parent = path.parentPath?.node;
  if (isMessageText(path)) return REASONS.message;
  // The switch itself, wherever it stands.
  const own = switchTest(node);
  if (own) return REASONS[own];
  if (!parent) return undefined;
  if (parent.type === 'IfStatement' || parent.type === 'ConditionalExpression') {
    // A condition that holds only with a switch on (or off) is the switch: `a && faults.has(…)`.
    if (path.key === 'test') {
      const kind = onlyWhenTruthy(node) ?? onlyWhenFalsy(node);
      if (kind) return REASONS[kind];
    }
    if (path.key === 'consequent') {
      const kind = onlyWhenTruthy(parent.test);
      if (kind) return REASONS[kind];
    }
    if (path.key === 'alternate') {
      const kind = onlyWhenFalsy(parent.test);
      if (kind) return REASONS[kind];
    }
  }
  // `faults.has(…) && x`: x is evaluated only with the switch on.
  if (parent.type === 'LogicalExpression' && path.key === 'right') {
    const kind = parent.operator === '&&' ? onlyWhenTruthy(parent.left) : parent.operator === '||' ? onlyWhenFalsy(parent.left) : undefined;
    if (kind) return REASONS[kind];
  }
  return undefined;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'switches-and-wording', {
    /** @param {any} path a Babel NodePath */
    shouldIgnore: (path) => whyIgnored(path),
  }),
];
