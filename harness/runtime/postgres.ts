/**
 * A PostgreSQL server for one run (the consumers' entity store, `consumers.store: postgres`):
 * Debian's programs, a fresh cluster in a temporary folder (initdb), on a free loopback port,
 * run as the `postgres` user when convoy runs as root (PostgreSQL refuses root). A test store:
 * fsync, synchronous commit and full-page writes are off (a crash of the machine loses it; a
 * crash of a consumer does not, and that is what a run tests). Stopped and its folder removed
 * at the run's end, or by the reaper when the harness dies (the folder is the process's scratch).
 *
 * Loopback clients are trusted. With `remote` addresses (a run whose consumers are on agents:
 * this host's addresses as they reach it) it listens on those too, and a client from elsewhere
 * must give the run's password, made at random here and carried in the URL.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { InfraError } from '../errors.ts';
import { freePort } from './ports.ts';
import { LocalProcess } from './process.ts';
import { postgresBin, POSTGRESQL, requireTool } from './requirements.ts';

export interface PostgresServer {
  /** postgres://convoy@127.0.0.1:<port>/postgres (with the password when it listens beyond loopback) */
  url: string;
  port: number;
  pid: number | undefined;
  /** Stops the server (fast shutdown) and removes its folder. */
  stop(): Promise<void>;
}

/** The `postgres` user's ids when convoy runs as root; undefined otherwise (the server runs as convoy's user). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new InfraError('postgresql: no `postgres` user (the Debian package makes one; PostgreSQL refuses to run as root): run ./convoy setup');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export interface PostgresOptions {
  /** Addresses of this host to listen on beside 127.0.0.1, for clients on other hosts. */
  remote?: string[];
}

export async function startPostgres(log: (line: string) => void = () => {}, options: PostgresOptions = {}): Promise<PostgresServer> {
  const remote = options.remote?.filter((a) => a !== '127.0.0.1') ?? [];
  requireTool(POSTGRESQL, "for the consumers' PostgreSQL store");
  const user = serverUser();
  // The postgres user must reach it: a TMPDIR of root's own (the test runner's is 0700) would not do.
  const dir = mkdtempSync(join(user ? '/tmp' : tmpdir(), 'convoy-pg-'));
  try {
    if (user) chownSync(dir, user.uid, user.gid);
    const data = join(dir, 'data');
    const password = remote.length ? randomBytes(16).toString('hex') : undefined;
    const pwfile = join(dir, 'password');
    if (password) {
      writeFileSync(pwfile, password + '\n', { mode: 0o600 });
      if (user) chownSync(pwfile, user.uid, user.gid);
    }
    const init = spawnSync(postgresBin('initdb')!, ['-D', data, '-U', 'convoy', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions', ...(password ? [`--pwfile=${pwfile}`] : [])], {
      encoding: 'utf8',
      timeout: 120_000,
      ...(user ?? {}),
    });
    if (init.status !== 0) throw new InfraError(`postgresql: initdb failed (${init.status ?? init.signal}); last lines:`, `${init.stdout}\n${init.stderr}`.trim().split('\n').slice(-10));
    if (password) {
      rmSync(pwfile, { force: true });
      // After initdb's own lines (loopback: trust): everyone else with the password.
      appendFileSync(join(data, 'pg_hba.conf'), 'host all convoy 0.0.0.0/0 scram-sha-256\nhost all convoy ::/0 scram-sha-256\n');
    }
    const port = await freePort();
    const proc = LocalProcess.start({
      name: 'postgresql',
      command: postgresBin('postgres')!,
      args: ['-D', data, '-p', String(port), '-k', dir, '-c', `listen_addresses=${['127.0.0.1', ...remote].join(',')}`, '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
      logFile: join(dir, 'server.log'),
      scratchDir: dir,
      ...(user ? { user } : {}),
    });
    const url = `postgres://convoy${password ? `:${password}` : ''}@127.0.0.1:${port}/postgres`;
    await proc.waitHealthy(() => canQuery(url), 60_000, 100);
    log(`postgresql: started on ${['127.0.0.1', ...remote].join(', ')} port ${port} (pid ${proc.pid}, data in ${dir})`);
    return {
      url,
      port,
      pid: proc.pid,
      async stop() {
        await proc.stop('SIGINT', 15_000); // SIGINT: PostgreSQL's fast shutdown
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function canQuery(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } finally {
    await c.end().catch(() => {});
  }
}
