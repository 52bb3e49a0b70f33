// No product file is longer than MAX_FILE_LINES, and no function of the product code longer than MAX_LINES (issue
// 69: the longest a newcomer met first were startOperator at 162 lines and startHosted at 155): a file that grows past
// it is split by idea, a function becomes named steps. Functions are counted from TypeScript's own syntax tree — every
// function, method, arrow function, constructor and accessor with a body, from its first line to its last, nested
// ones counted in their parent too. The generated rule data of api-types/kubernetes-gates/ and
// api-types/kubelet-config-rules/ are data, not functions to read. Lines of at most 140 columns are the linter's
// (max-len in eslint.config.js).
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { typeScriptFiles } from '../support/repo-files.js';

const MAX_LINES = 80;
const MAX_FILE_LINES = 400;
const PRODUCT = ['api-types', 'runtime', 'sdk', 'control-plane', 'controllers', 'standalone', 'hosted', 'cmd'];
const GENERATED = new Set([join('api-types', 'kubernetes-gates'), join('api-types', 'kubelet-config-rules')]);

/** Each function of `text` longer than `max` lines: where it starts, its name, its length. */
function longFunctions(file: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = 'name' in node && node.name ? node.name.getText(source) : '(anonymous)';
      if (last - first + 1 > max) found.push(`${file}:${first + 1} ${name}: ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function productFiles(root: string): string[] {
  return PRODUCT.flatMap((top) => typeScriptFiles(join(root, top), (path) => GENERATED.has(relative(root, path))));
}

describe(`product functions of at most ${MAX_LINES} lines`, () => {
  it('counts a function, a method and an arrow function from their first line to their last', () => {
    const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  x += ${i};`).join('\n');
    const text = [
      `function long(): void {\n  let x = 0;\n${body(80)}\n}`,
      `function fits(): void {\n${body(80)}\n}`,
      `class C {\n  method(): void {\n    let x = 0;\n${body(80)}\n  }\n}`,
      `const arrow = (): void => {\n  let x = 0;\n${body(80)}\n};`,
    ].join('\n');
    expect(longFunctions('t.ts', text, 80).map((f) => f.replace(/:\d+ /, ' '))).toEqual([
      't.ts long: 81 lines', 't.ts method: 81 lines', 't.ts (anonymous): 81 lines',
    ]);
  });

  it('the product code has none longer', () => {
    const root = resolve('.');
    const files = productFiles(root);
    expect(files.length).toBeGreaterThan(150); // the walk reached the tree
    expect(files.flatMap((f) => longFunctions(relative(root, f), readFileSync(f, 'utf8'), MAX_LINES))).toEqual([]);
  });
});

describe(`product files of at most ${MAX_FILE_LINES} lines`, () => {
  it('the product code has none longer (a file that grows past it is split by idea)', () => {
    const root = resolve('.');
    const long = productFiles(root).map((f) => ({ file: relative(root, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });
});
