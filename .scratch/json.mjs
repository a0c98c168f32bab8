const q = JSON.stringify;
function num(n) {
  if (n >= 2147483648 && n <= Number.MAX_SAFE_INTEGER && Number.isInteger(n)) { const hi = Math.floor(n / 1e8); return String(hi) + String(n - hi * 1e8).padStart(8, '0'); }
  return Number.isFinite(n) ? String(n) : 'null';
}
const SAFE = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const str = (s) => (SAFE.test(s) ? `"${s}"` : q(s));
function line(ev) {
  let out = '{';
  let first = true;
  for (const k in ev) {
    const v = ev[k];
    let t;
    switch (typeof v) {
      case 'string': t = str(v); break;
      case 'number': t = num(v); break;
      case 'boolean': t = v ? 'true' : 'false'; break;
      case 'undefined': continue;
      case 'object': t = v === null ? 'null' : q(v); break;
      default: t = q(v); if (t === undefined) continue;
    }
    out += (first ? '"' : ',"') + k + '":' + t;
    first = false;
  }
  return out + '}';
}
function line2(ev) {
  return `{"type":"process","key":${ev.key===null?'null':str(ev.key)},"producer":${ev.producer===null?'null':str(ev.producer)},"seq":${ev.seq===null?'null':num(ev.seq)},"consumer":${str(ev.consumer)}`+
   (ev.lane===undefined?'':`,"lane":${str(ev.lane)}`)+(ev.offset===undefined?'':`,"offset":${num(ev.offset)}`)+(ev.deliveryCount===undefined?'':`,"deliveryCount":${num(ev.deliveryCount)}`)+
   (ev.intended===undefined?'':`,"intended":${num(ev.intended)}`)+(ev.stamp===undefined?'':`,"stamp":${num(ev.stamp)}`)+`,"received":${num(ev.received)},"start":${num(ev.start)},"end":${num(ev.end)},"outcome":${str(ev.outcome)}`+(ev.effect===undefined?'':`,"effect":${str(ev.effect)}`)+'}';
}
const now = () => Math.round(1.7e15 + performance.now() * 1000);
const evs = Array.from({ length: 1000 }, (_, i) => ({ type: 'process', key: 'k' + i, producer: 'bench', seq: i % 50 + 1, consumer: 'c1', lane: String(i % 6), offset: i * 7, deliveryCount: undefined, intended: now(), stamp: undefined, received: now(), start: now(), end: now(), outcome: 'ok', effect: 'applied' }));
for (const [name, f] of [['stringify', q], ['forin', line], ['template', line2], ['stringify', q], ['forin', line], ['template', line2]]) {
  let s = 0; const c0 = process.cpuUsage();
  for (let r = 0; r < 300; r++) for (const e of evs) s += f(e).length;
  const c = process.cpuUsage(c0); console.log(name, ((c.user + c.system) / 300000).toFixed(3), 'us', s);
}
for (const e of evs) if (line(e) !== q(e) || line2(e) !== q(e)) { console.log('DIFF', line(e), q(e)); break; }
