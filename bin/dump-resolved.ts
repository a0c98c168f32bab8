/**
 * Writes the resolved scenario (JSON) of every scenario file under the given folders to
 * <out>/<relative path>.json: `node --import tsx bin/dump-resolved.ts <out> workloads brokers/memory/test/scenarios`.
 * Compare two dumps with `diff -r` to show that a change to scenario files (say, twins turned
 * into `extends:`) leaves what runs unchanged.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { loadScenario } from '../harness/scenario/load.ts';
import { scenarioCatalogue } from '../harness/cli/catalogue.ts';

const [out, ...dirs] = process.argv.slice(2);
if (!out || dirs.length === 0) {
  process.stderr.write('usage: dump-resolved.ts <out-dir> <scenario-dir...>\n');
  process.exit(2);
}
const walk = (d: string): string[] =>
  readdirSync(d).flatMap((n) => {
    const p = join(d, n);
    return statSync(p).isDirectory() ? walk(p) : /\.ya?ml$/.test(n) ? [p] : [];
  });
const catalogue = await scenarioCatalogue();
let n = 0;
for (const dir of dirs) {
  for (const file of walk(dir).sort()) {
    const { scenario } = await loadScenario(file, { catalogue });
    const target = join(out, relative(process.cwd(), file) + '.json');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, JSON.stringify(scenario, null, 2) + '\n');
    n++;
  }
}
process.stdout.write(`${n} resolved scenarios in ${out}\n`);
