/**
 * One answer of the API judged against spec/openapi.yaml: the operation it
 * answers (by method and path below the API root), then its status, body
 * schema, error code and required headers (`Contract.checkResponse`). The
 * suite's client runs it on every answer a check gets; watch runs the same
 * on every answer it sees in traffic, so a response rule lives once.
 */
import { loadContract, type Contract, type Operation } from '../spec/contract.ts';

/** What one answer breaks: the operation it answered, and each problem, empty when it conforms. */
export interface ResponseVerdict {
  operation: string;
  problems: string[];
}

export class ResponseCheck {
  private readonly routes: { op: Operation; pattern: RegExp }[];

  constructor(readonly contract: Contract = loadContract()) {
    this.routes = contract.operations.map((op) => ({
      op,
      pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  /** The operation of `method` on `path` (below the API root, no query), or undefined when the contract has none. */
  operation(method: string, path: string): Operation | undefined {
    return this.routes.find((r) => r.op.method === method.toLowerCase() && r.pattern.test(path))?.op;
  }

  /**
   * Judges an answer; null when `path` is no operation of the contract.
   * `text` is the body as received ('' when empty); headers are keyed in lower case.
   */
  judge(method: string, path: string, status: number, text: string, headers: Record<string, string>, parsed?: unknown): ResponseVerdict | null {
    const op = this.operation(method, path);
    if (!op) return null;
    // `parsed`: the body already parsed by the caller (watch parses each body once for all its rules); never JSON null.
    const body = parsed !== undefined && parsed !== null ? parsed : text === '' ? undefined : parseOrText(text);
    return { operation: op.id, problems: this.contract.checkResponse(op, status, body, headers) };
  }
}

/** The parsed body, or the text itself when it is not JSON (or is JSON null), as the client always judged it. */
function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) ?? text;
  } catch {
    return text;
  }
}
