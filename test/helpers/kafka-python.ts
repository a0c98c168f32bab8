/**
 * kafka-python, a pure-Python Kafka client, for the consumer-under-test test of a service in a
 * third language: installed from PyPI into convoy's cache once (pip --target), then found there.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../harness/runtime/cache.ts';

const VERSION = '2.3.3';

/** The folder to put on PYTHONPATH. */
export function kafkaPython(): string {
  const dir = join(cacheDir('python'), `kafka-python-${VERSION}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--target', tmp, `kafka-python==${VERSION}`], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 });
  writeFileSync(join(tmp, '.complete'), '');
  // Another process may have finished first: its copy is as good.
  if (!existsSync(join(dir, '.complete'))) {
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } else rmSync(tmp, { recursive: true, force: true });
  return dir;
}
