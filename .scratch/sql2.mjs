import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
for (const variant of ['', ' WITHOUT ROWID', '', ' WITHOUT ROWID']) {
  for (const f of ['/tmp/sb2.sqlite', '/tmp/sb2.sqlite-wal', '/tmp/sb2.sqlite-shm']) rmSync(f, { force: true });
  const db = new Database('/tmp/sb2.sqlite'); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE t (key TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL)${variant}`);
  const one = db.prepare(`INSERT INTO t (key, version, state) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state WHERE t.version < excluded.version`);
  const N = 200000, KEYS = 10000, G = 1000;
  const st = (k, s) => `{"count":${s},"status":"open","note":"x"}`;
  const c0 = process.cpuUsage();
  for (let g = 0; g < N; g += G) { db.exec('BEGIN IMMEDIATE'); for (let i = g; i < g + G; i++) { const k = 'k' + (i % KEYS); one.run(k, Math.floor(i / KEYS) + 1, st(k, i)); } db.exec('COMMIT'); }
  const c = process.cpuUsage(c0); console.log(variant || 'rowid', ((c.user + c.system) / N).toFixed(2), 'us/msg');
  db.close();
}
