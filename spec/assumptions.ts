/**
 * Every `x-assumption` of spec/openapi.yaml with the node that carries it: the
 * choices this project made where the API document says "not shown".
 * `npm run spec:assumptions` prints them; spec/contract.test.ts holds each gap
 * of the document to one. No simulator or suite code reads them.
 */
import { contractDocument, type JsonSchema } from './contract.ts';

export interface Assumption {
  /** JSON pointer of the node carrying `x-assumption`. */
  pointer: string;
  text: string;
}

/** The x-assumptions of `document` (as spec/openapi.yaml reads, before any `$ref` is resolved), in document order. */
export function assumptionsOf(document: JsonSchema = contractDocument()): Assumption[] {
  const out: Assumption[] = [];
  const walk = (node: unknown, pointer: string) => {
    if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${pointer}/${i}`));
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key === 'x-assumption' && typeof value === 'string') out.push({ pointer, text: value });
      else walk(value, here);
    }
  };
  walk(document, '#');
  return out;
}
