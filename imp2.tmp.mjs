const t = process.cpuUsage(); const t0 = performance.now();
const what = process.argv[2];
if (what === 'faults') { const m = await import('/work/wt19/harness/faults/registry.ts'); await m.faultKinds(); }
else if (what === 'strategies') { const m = await import('/work/wt19/harness/consumer/strategies/registry.ts'); await m.loadStrategies(); }
else if (what === 'memory') { const m = await import('/work/wt19/harness/broker/registry.ts'); const b = await m.loadBroker('memory'); }
else if (what === 'memory-settings') { const m = await import('/work/wt19/harness/broker/registry.ts'); const b = await m.loadBroker('memory'); const t1 = process.cpuUsage(); b.resolveSettings({kind:'memory'}); console.log('resolve', process.cpuUsage(t1)); }
else if (what === 'ajv') { await import('ajv/dist/2020.js'); }
else if (what === 'none') {}
else await import(what);
const u = process.cpuUsage(t); console.log(what, 'user', (u.user/1000).toFixed(0), 'sys', (u.system/1000).toFixed(0), 'wall', (performance.now()-t0).toFixed(0));
process.exit(0);
