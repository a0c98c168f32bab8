/* convoy dashboard: two runs side by side, chosen by ?a=&b= (or #a=&b=) or the pickers. */
(function () {
  'use strict';
  var C = window.ConvoyCharts;
  var runs = C.readData('convoy-data').runs;
  var byId = {};
  runs.forEach(function (r) { byId[r.runId] = r; });
  var chart = null;

  function params() {
    var out = {};
    [location.search, location.hash].forEach(function (part) {
      new URLSearchParams(part.replace(/^[?#]/, '')).forEach(function (v, k) { out[k] = v; });
    });
    return out;
  }

  /** Default: the two newest runs of the scenario whose newest run is newest, else the two newest. */
  function defaults() {
    var newest = runs.slice().reverse();
    for (var i = 0; i < newest.length; i++) {
      var same = newest.filter(function (r) { return r.scenario === newest[i].scenario; });
      if (same.length >= 2) return [same[1].runId, same[0].runId];
    }
    return newest.length >= 2 ? [newest[1].runId, newest[0].runId] : [];
  }

  function fill(select, chosen) {
    var groups = {};
    runs.forEach(function (r) { (groups[r.scenario] = groups[r.scenario] || []).push(r); });
    Object.keys(groups).sort().forEach(function (s) {
      var g = document.createElement('optgroup');
      g.label = s;
      groups[s].slice().reverse().forEach(function (r) {
        var o = document.createElement('option');
        o.value = r.runId;
        o.textContent = r.runId + ' — ' + r.verdict + ' — ' + r.broker + ' ' + Object.values(r.brokerVersions).join(' ');
        if (r.runId === chosen) o.selected = true;
        g.appendChild(o);
      });
      select.appendChild(g);
    });
  }

  function flatten(obj, prefix, out) {
    Object.keys(obj || {}).sort().forEach(function (k) {
      var v = obj[k];
      var key = prefix ? prefix + '.' + k : k;
      if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, key, out);
      else out[key] = JSON.stringify(v);
    });
    return out;
  }

  function rows(a, b) {
    var out = [];
    var add = function (label, va, vb, kind) { out.push({ label: label, a: va, b: vb, kind: kind || 'text' }); };
    add('scenario', a.scenario, b.scenario);
    add('started', a.started, b.started);
    add('verdict', a.verdict, b.verdict);
    add('broker', a.broker, b.broker);
    var bv = {};
    Object.keys(a.brokerVersions).concat(Object.keys(b.brokerVersions)).forEach(function (k) { bv[k] = true; });
    Object.keys(bv).sort().forEach(function (k) { add('broker version: ' + k, a.brokerVersions[k], b.brokerVersions[k]); });
    var cv = {};
    Object.keys(a.clients).concat(Object.keys(b.clients)).forEach(function (k) { cv[k] = true; });
    Object.keys(cv).sort().forEach(function (k) { add('client: ' + k, a.clients[k], b.clients[k]); });
    add('runtime', a.runtime, b.runtime);
    add('convoy', a.convoy, b.convoy);
    add('faults', a.faults.join(', '), b.faults.join(', '));
    add('messages sent', a.figures.sent, b.figures.sent, 'count');
    add('achieved rate (msg/s)', a.figures.achievedRate, b.figures.achievedRate, 'count');
    add('processed rate (msg/s)', a.figures.processedRate, b.figures.processedRate, 'count');
    ['endToEnd', 'publish', 'publishDelay', 'handler', 'keyWait'].forEach(function (m) {
      ['p50', 'p99', 'p999', 'max'].forEach(function (s) {
        var la = a.figures.latency[m];
        var lb = b.figures.latency[m];
        if (!la && !lb) return;
        add(m + ' ' + s, la ? la[s] : null, lb ? lb[s] : null, 'us');
      });
    });
    Object.keys(a.anomalies).forEach(function (t) { add('anomaly: ' + t, a.anomalies[t], b.anomalies[t], 'count'); });
    var ex = {};
    var exA = {};
    var exB = {};
    a.expectations.forEach(function (e) { ex[e.label + ' ' + e.expected] = true; exA[e.label + ' ' + e.expected] = e; });
    b.expectations.forEach(function (e) { ex[e.label + ' ' + e.expected] = true; exB[e.label + ' ' + e.expected] = e; });
    var show = function (e) { return e ? (e.held === true ? 'held' : e.held === false ? 'FAILED' : 'undecided') + ' (found ' + (e.found === null ? '—' : e.found) + ')' : null; };
    Object.keys(ex).forEach(function (k) { add('expect ' + k, show(exA[k]), show(exB[k])); });
    var sa = flatten(a.brokerSettings, '', {});
    var sb = flatten(b.brokerSettings, '', {});
    var keys = {};
    Object.keys(sa).concat(Object.keys(sb)).forEach(function (k) { keys[k] = true; });
    Object.keys(keys).sort().forEach(function (k) { add('broker setting: ' + k, sa[k], sb[k]); });
    return out;
  }

  function shown(v, kind) {
    if (v === null || v === undefined) return '—';
    if (kind === 'us') return C.formatDuration(v);
    if (kind === 'count') return Number(v).toLocaleString('en-US');
    return String(v);
  }

  function delta(row) {
    if ((row.kind !== 'us' && row.kind !== 'count') || typeof row.a !== 'number' || typeof row.b !== 'number') return '';
    var d = row.b - row.a;
    if (d === 0) return '=';
    var pct = row.a !== 0 ? ' (' + (d >= 0 ? '+' : '') + ((d / row.a) * 100).toFixed(1) + '%)' : '';
    return (d >= 0 ? '+' : '−') + shown(Math.abs(d), row.kind) + pct;
  }

  function render(idA, idB) {
    var a = byId[idA];
    var b = byId[idB];
    var table = document.getElementById('compare-table');
    if (!a || !b) {
      document.getElementById('compare-empty').hidden = false;
      table.hidden = true;
      document.body.dataset.compared = '';
      return;
    }
    document.getElementById('head-a').textContent = a.runId;
    document.getElementById('head-b').textContent = b.runId;
    var tbody = table.querySelector('tbody');
    tbody.textContent = '';
    rows(a, b).forEach(function (row) {
      var tr = document.createElement('tr');
      tr.dataset.row = row.label;
      var cells = [row.label, shown(row.a, row.kind), shown(row.b, row.kind), delta(row)];
      cells.forEach(function (text, i) {
        var td = document.createElement('td');
        td.textContent = text;
        if (i > 0 && row.kind !== 'text') td.className = 'num';
        if (i === 1) td.dataset.value = row.a === null || row.a === undefined ? '' : String(row.a);
        if (i === 2) td.dataset.value = row.b === null || row.b === undefined ? '' : String(row.b);
        if ((i === 1 || i === 2) && JSON.stringify(row.a) !== JSON.stringify(row.b)) td.classList.add('diff');
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
    curves(a, b);
    document.body.dataset.compared = a.runId + ' ' + b.runId;
  }

  function curves(a, b) {
    var el = document.getElementById('chart-compare-curves');
    if (chart) { chart.destroy(); chart = null; el.textContent = ''; }
    var ps = [];
    [a, b].forEach(function (r) { ['endToEnd', 'publish'].forEach(function (m) { r.curves[m].forEach(function (p) { if (ps.indexOf(p.percentile) < 0) ps.push(p.percentile); }); }); });
    ps.sort(function (x, y) { return x - y; });
    var cols = [ps.map(C.tailX)];
    var series = [{ label: 'percentile' }];
    [[a, 'A', C.PALETTE[0]], [b, 'B', C.PALETTE[9]]].forEach(function (x) {
      [['endToEnd', 'e2e', []], ['publish', 'publish', [5, 4]]].forEach(function (m) {
        var byP = {};
        x[0].curves[m[0]].forEach(function (p) { byP[p.percentile] = p.us; });
        cols.push(ps.map(function (p) { return byP[p] === undefined ? null : C.logMs(byP[p]); }));
        series.push({ label: x[1] + ' ' + m[1], stroke: x[2], dash: m[2], width: 2, points: { show: true, size: 4 } });
      });
    });
    var ax = C.curveAxes();
    chart = C.chart(el, { title: 'Latency percentiles: A vs B (log scale)', legend: { live: false }, scales: ax.scales, axes: ax.axes, series: series, height: 280 }, cols);
  }

  try {
    var p = params();
    var d = defaults();
    var idA = p.a || d[0];
    var idB = p.b || d[1];
    var pa = document.getElementById('pick-a');
    var pb = document.getElementById('pick-b');
    fill(pa, idA);
    fill(pb, idB);
    var onPick = function () {
      try { location.hash = 'a=' + encodeURIComponent(pa.value) + '&b=' + encodeURIComponent(pb.value); } catch (e) { /* some file:// settings refuse */ }
      render(pa.value, pb.value);
    };
    pa.addEventListener('change', onPick);
    pb.addEventListener('change', onPick);
    render(idA, idB);
    document.body.dataset.chartsReady = 'true';
  } catch (e) {
    document.body.dataset.chartsError = String((e && e.stack) || e);
    throw e;
  }
})();
