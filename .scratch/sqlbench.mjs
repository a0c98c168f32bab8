import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
rmSync('/tmp/sb.sqlite*', { force: true });
const db = new Database('/tmp/sb.sqlite'); db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS t (key TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL)');
const one = db.prepare(`INSERT INTO t (key, version, state) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state WHERE t.version < excluded.version`);
const N = 200000, KEYS = 10000, G = 1000;
const st = (k, s) => `{"status":"s${s%4}","amount":${s}}`;
let t = performance.now(); let c0 = process.cpuUsage();
for (let g = 0; g < N; g += G) { db.exec('BEGIN IMMEDIATE'); for (let i = g; i < g + G; i++) { const k = 'k' + (i % KEYS); one.run(k, Math.floor(i / KEYS) + 1, st(k, i)); } db.exec('COMMIT'); }
let c = process.cpuUsage(c0); console.log('per-row', ((c.user + c.system) / N).toFixed(2), 'us/msg');
db.exec('DELETE FROM t');
// batch: select versions for keys, compute, multi-row upsert in chunks of B
const B = 100;
const sel = new Map(); const ins = new Map();
const selFor = (n) => sel.get(n) ?? (sel.set(n, db.prepare(`SELECT key, version FROM t WHERE key IN (${Array(n).fill('?').join(',')})`).raw()), sel.get(n));
const insFor = (n) => ins.get(n) ?? (ins.set(n, db.prepare(`INSERT INTO t (key, version, state) VALUES ${Array(n).fill('(?,?,?)').join(',')} ON CONFLICT (key) DO UPDATE SET version = excluded.version, state = excluded.state WHERE t.version < excluded.version`)), ins.get(n));
c0 = process.cpuUsage();
for (let g = 0; g < N; g += G) {
  db.exec('BEGIN IMMEDIATE');
  const win = new Map();
  for (let i = g; i < g + G; i++) { const k = 'k' + (i % KEYS); const s = Math.floor(i / KEYS) + 1; const w = win.get(k); if (!w || w.s < s) win.set(k, { s, i }); }
  const keys = [...win.keys()];
  for (let j = 0; j < keys.length; j += B) { const ks = keys.slice(j, j + B); selFor(ks.length).all(...ks); }
  for (let j = 0; j < keys.length; j += B) { const ks = keys.slice(j, j + B); const args = []; for (const k of ks) { const w = win.get(k); args.push(k, w.s, st(k, w.i)); } insFor(ks.length).run(...args); }
  db.exec('COMMIT');
}
c = process.cpuUsage(c0); console.log('batched', ((c.user + c.system) / N).toFixed(2), 'us/msg');
