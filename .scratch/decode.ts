import { encodeMessage, decodeMessage } from '../harness/workload/codec.ts';
const msgs = Array.from({ length: 10000 }, (_, i) => encodeMessage({ producer: 'bench', key: `k${i}`, seq: (i % 10) + 1, entity: 'counter', intendedUs: 1.7e15 + i, poison: false }, 256));
for (let r = 0; r < 4; r++) {
  const c0 = process.cpuUsage();
  let n = 0;
  for (let j = 0; j < 30; j++) for (const m of msgs) n += decodeMessage(m)!.seq;
  const c = process.cpuUsage(c0);
  console.log('decode', ((c.user + c.system) / 300000).toFixed(3), 'us', n);
}
