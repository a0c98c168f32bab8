import type { Command } from 'commander';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { scenarioCatalogue } from '../catalogue.ts';
import { EXIT, InputError } from '../../errors.ts';
import { buildCells } from '../../matrix/cells.ts';
import { makePlan, readPlan, writePlan } from '../../matrix/plan.ts';
import { runMatrix } from '../../matrix/run-matrix.ts';
import { writeComparison } from '../../matrix/output.ts';
import { loadBroker } from '../../broker/registry.ts';
import { reportAfterRun } from '../../report/render.ts';
import { newRunId } from '../../runner/run-id.ts';
import { runOnce } from '../../runner/run-and-analyze.ts';
import { onInterrupt } from '../../runtime/cleanup.ts';
import { SuiteBrokers } from '../../suite/brokers.ts';
import { columnDir, columnFiles, columnMatrix, discoverColumns, discoverRows } from '../../defences/columns.ts';
import { DEFENCES_SCHEMA, MODE_FIGURES, columnCells, type DefencesData } from '../../defences/table.ts';
import { DEFENCES_HTML, defencesMarkdown, defencesPage } from '../../defences/render.ts';
import { checkRuntime } from '../runtime-flag.ts';

interface DefencesFlags {
  suite: string;
  repeat: string;
  seed: string;
  results: string;
  docs: string;
  resume?: string;
  rows?: string;
  render?: boolean;
  runtime: string;
  reuseBrokers: boolean;
  quiet?: boolean;
}

const HELP = `
Runs the defences suite: one scenario per column (a fault shape that breaks per-key order)
in --suite, and in each column every consumer strategy of the catalogue that fits the
column's entity, as the consumers' own live strategy, then every concurrency mode that
declares itself a defence (conflate, batch), as the consumers' mode beside the column's own
strategy (each column is a matrix over its rows; a strategy added to
harness/consumer/strategies/ or a mode to harness/consumer/concurrency/modes/ joins with no
edit). Writes <results>/defences-<time>/ (the columns' matrix folders, defences.json,
${DEFENCES_HTML}) and, in --docs, defences.json (every number with its runs, seeds and
commit) and defences.md rendered from it. --render rewrites defences.md from --docs'
defences.json without running anything. --rows runs only the named rows: the run folder gets
its defences.json and page, the doc is printed, and --docs is left alone (a partial table).
`;

function positiveInt(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`${flag}: expected an integer >= 1, got "${text}"`);
  return n;
}

/** The commit the numbers came from; `+dirty` when the tree had uncommitted changes. */
function commitOf(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${head}+dirty` : head;
  } catch {
    return 'unknown';
  }
}

export function register(program: Command): void {
  program
    .command('defences')
    .description('measure the consumer defences: fault shapes (columns) x every fitting strategy (rows), run live; writes docs/defences.{json,md} and a dashboard page')
    .option('--suite <dir>', 'folder of column scenarios', 'workloads/defences')
    .option('--repeat <n>', 'runs per cell', '1')
    .option('--seed <n>', 'matrix seed: the run order and the runs\' workload seeds', '1')
    .option('--results <dir>', 'parent folder for the defences run folder', 'results')
    .option('--docs <dir>', 'where defences.json and defences.md go', 'docs')
    .option('--resume <dir>', 'continue an interrupted defences run (its folder)')
    .option('--rows <names>', 'run only these rows (comma-separated strategies or modes); leaves --docs alone')
    .option('--render', 'rewrite defences.md from the docs folder\'s defences.json; run nothing')
    .option('--runtime <kind>', 'where brokers come from: local, containers', 'local')
    .option('--no-reuse-brokers', 'local runtime: let every run start and stop its own brokers')
    .option('--quiet', 'no progress output from the runs')
    .addHelpText('after', HELP)
    .action((o: DefencesFlags) => defencesCommand(o));
}

async function defencesCommand(o: DefencesFlags): Promise<void> {
  const docs = resolve(o.docs);
  if (o.render) {
    const data = JSON.parse(readFileSync(join(docs, 'defences.json'), 'utf8')) as DefencesData;
    writeFileSync(join(docs, 'defences.md'), defencesMarkdown(data));
    process.stdout.write(defencesMarkdown(data));
    return;
  }
  const runtime = checkRuntime(o.runtime);
  if (runtime === 'external') throw new InputError('--runtime: the defences suite starts its own brokers (local or containers), got external');
  const repeats = positiveInt('--repeat', o.repeat);
  const seed = Number(o.seed);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new InputError(`--seed: expected an integer >= 0, got "${o.seed}"`);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const started = Date.now();
  // The commit the runs ran on, taken before they start (the tree may change while they run).
  const commit = commitOf();
  const catalogue = await scenarioCatalogue();
  const target = { runtime, allowDestructive: false };
  const allRows = await discoverRows();
  const only = o.rows?.split(',').map((r) => r.trim()).filter(Boolean);
  if (only) {
    const unknown = only.filter((r) => !allRows.some((x) => x.name === r));
    if (unknown.length || !only.length) throw new InputError(`--rows: ${unknown.length ? `no strategy or defence mode named ${unknown.join(', ')}` : 'no row named'} (rows: ${allRows.map((r) => r.name).join(', ')})`);
    if (o.resume) throw new InputError('--rows: a resumed run keeps the rows it was planned with; leave --rows out');
  }
  const columns = await discoverColumns(columnFiles(resolve(o.suite)), { catalogue, target }, allRows);
  const dir = o.resume ? resolve(o.resume) : join(resolve(o.results), newRunId('defences'));
  mkdirSync(dir, { recursive: true });

  // Every column's cells are checked before any broker starts.
  const plans = [];
  for (const column of columns) {
    const cdir = columnDir(dir, column);
    if (o.resume) {
      plans.push({ column, dir: cdir, plan: readPlan(cdir) });
      continue;
    }
    const matrix = columnMatrix(column, allRows, repeats, seed, only);
    if (!matrix.axes[0]!.values.length) continue; // --rows: none of them fits this column
    const { cells } = await buildCells(matrix, { catalogue, target });
    mkdirSync(cdir, { recursive: true });
    const plan = makePlan(matrix, cells);
    writePlan(cdir, plan);
    plans.push({ column, dir: cdir, plan });
  }
  const total = plans.reduce((n, p) => n + p.plan.runs.length, 0);
  log(`defences: ${columns.length} columns, ${total} runs (${repeats} per cell) in ${dir}`);

  const brokers = runtime === 'local' && o.reuseBrokers ? new SuiteBrokers(log, true) : undefined;
  let stopped = false;
  const offInterrupt = onInterrupt(() => {
    stopped = true;
  });
  try {
    for (const p of plans) {
      if (stopped) break;
      log(`column ${p.column.name}: ${p.plan.cells.map((c) => c.values.defence ?? c.values['consumers.strategy']).join(', ')}`);
      await runMatrix(p.plan, { dir: p.dir, runtime, allowDestructive: false, keep: false, quiet: Boolean(o.quiet) }, {
        run: runOnce, report: reportAfterRun, log,
        prepare: brokers ? async (s) => ((await loadBroker(s.broker.kind)).testDouble ? undefined : brokers.prepare(s)) : undefined,
        stopped: () => stopped,
      });
      writeComparison(p.plan, p.dir);
    }
  } finally {
    offInterrupt();
    await brokers?.stopAll();
  }

  const figures: Record<string, string> = {};
  const modes: Record<string, string> = {};
  for (const r of allRows) {
    if (r.kind === 'strategy') for (const [name, what] of Object.entries(r.strategy.figures ?? {})) figures[name] ??= what;
    else modes[r.name] = r.defence;
  }
  if (Object.keys(modes).length) for (const [name, what] of Object.entries(MODE_FIGURES)) figures[name] ??= what;
  const rows = allRows.map((r) => r.name).filter((r) => !only || only.includes(r));
  const data: DefencesData = {
    schema: DEFENCES_SCHEMA, created: new Date().toISOString(), commit, repeats, seed,
    wallTimeMs: o.resume ? null : Date.now() - started,
    columns: columns.map((c) => ({ ...c, file: relative(process.cwd(), c.file) })),
    rows, modes, figures,
    cells: columns.flatMap((c) => columnCells(dir, c, rows, Object.keys(figures))),
  };
  const json = JSON.stringify(data, null, 2) + '\n';
  writeFileSync(join(dir, 'defences.json'), json);
  writeFileSync(join(dir, DEFENCES_HTML), defencesPage(data));
  const md = defencesMarkdown(data);
  if (stopped) {
    log(`interrupted: continue with convoy defences --resume ${dir}`);
    process.exitCode = EXIT.infrastructure;
    return;
  }
  if (only) {
    process.stdout.write(`${md}\n(--rows: ${docs} left alone)\n${join(dir, 'defences.json')}\n${join(dir, DEFENCES_HTML)}\n`);
    return;
  }
  mkdirSync(docs, { recursive: true });
  writeFileSync(join(docs, 'defences.json'), json);
  writeFileSync(join(docs, 'defences.md'), md);
  process.stdout.write(`${md}\n${join(docs, 'defences.json')}\n${join(docs, 'defences.md')}\n${join(dir, DEFENCES_HTML)}\n`);
}
