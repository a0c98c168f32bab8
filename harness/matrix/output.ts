/** Writes a matrix's comparison: matrix.json, matrix.html and matrix.md in the matrix folder. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareMatrix, type MatrixComparison } from './compare.ts';
import { MATRIX_HTML, matrixPage } from './page.ts';
import type { MatrixPlan } from './plan.ts';
import { readDone } from './run-matrix.ts';
import { comparisonMarkdown } from './table.ts';

export const MATRIX_JSON = 'matrix.json';
export const MATRIX_MD = 'matrix.md';

export function writeComparison(plan: MatrixPlan, dir: string): { comparison: MatrixComparison; files: string[] } {
  const comparison = compareMatrix(plan, dir, readDone(dir));
  const files = [join(dir, MATRIX_JSON), join(dir, MATRIX_HTML), join(dir, MATRIX_MD)];
  writeFileSync(files[0], JSON.stringify(comparison, null, 2) + '\n');
  writeFileSync(files[1], matrixPage(comparison, (runDir) => `${runDir.split('/').map(encodeURIComponent).join('/')}/report.html`));
  writeFileSync(files[2], comparisonMarkdown(comparison));
  return { comparison, files };
}
