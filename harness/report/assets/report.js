/* convoy: the run report's charts, drawn from the page's embedded data (#convoy-data). */
(function () {
  'use strict';
  var C = window.ConvoyCharts;
  var data = C.readData('convoy-data');
  var r = data.result;
  var noPath = function () { return null; };

  function el(id) { return document.getElementById(id); }

  function timeline() {
    var t = r.timeline || {};
    var s = t.series;
    if (!s || !el('chart-throughput')) return;
    var bs = s.bucketMs / 1000;
    var origin = s.originUs;
    var n = s.sent.length;
    var xs = [];
    for (var i = 0; i < n; i++) xs.push(i * bs);
    var rel = function (us) { return (us - origin) / 1e6; };
    var lastX = Math.max(n * bs, t.endUs ? rel(t.endUs) : 0);
    var windows = (data.windows || []).map(function (w) {
      return { name: w.name, from: w.start === null ? 0 : rel(w.start), to: w.end === null ? lastX : rel(w.end), until: w.until === null ? null : rel(w.until) };
    });
    var anomalies = (t.anomalies || []).map(function (a) { return { x: rel(a.at), color: C.ANOMALY_COLORS[a.type] || '#000', type: a.type }; });
    var plugins = [C.faultShading(windows), C.markers(anomalies)];
    var target = (r.workload && r.workload.targetRate) || null;
    var sync = { key: 'timeline' };
    var perS = function (arr) { return (arr || []).map(function (v) { return v / bs; }); };
    var xAxis = { values: C.secondsValues };
    // One y-axis width for the three stacked charts, so their plot areas (and a fault window's
    // edges) line up on the same x positions.
    var yAxisSize = 70;
    var xSeries = { label: 'time', value: function (u, v) { return v === null || v === undefined ? '—' : v.toFixed(1) + ' s'; } };
    var tp = C.chart(el('chart-throughput'), {
      title: 'Throughput (msg/s)', plugins: target ? plugins.concat([C.referenceLine(target, 'target ' + target.toLocaleString('en-US') + ' msg/s')]) : plugins, cursor: { sync: sync },
      scales: { x: { time: false }, y: { range: C.fromZero(target ? target * 1.1 : 0) } },
      axes: [xAxis, { label: 'msg/s', size: yAxisSize }],
      // Steps, not slopes: a count per second holds for its whole second, so the end of sending
      // shows as a drop at the second it happened, not as a decline over the second before.
      series: [xSeries, { label: 'sent', stroke: C.PALETTE[0], paths: C.steps }, { label: 'acked', stroke: C.PALETTE[1], paths: C.steps }, { label: 'processed', stroke: C.PALETTE[2], width: 2, paths: C.steps }]
    }, [xs, perS(s.sent), perS(s.acked), perS(s.processed)]);
    tp.root.parentElement.dataset.anomalyMarkers = String(anomalies.length);
    tp.root.parentElement.dataset.faultWindows = String(windows.length);
    C.chart(el('chart-backlog'), {
      title: 'Backlog (acked, not yet processed)', plugins: plugins, cursor: { sync: sync }, height: 180,
      scales: { x: { time: false }, y: { range: C.fromZero(0) } }, axes: [xAxis, { label: 'messages', size: yAxisSize }],
      series: [xSeries, { label: 'backlog', stroke: C.PALETTE[3], fill: 'rgba(148,103,189,0.15)' }]
    }, [xs, s.backlog.slice()]);
    var p50 = s.endToEnd.map(function (b) { return b ? C.logMs(b.p50) : null; });
    var p99 = s.endToEnd.map(function (b) { return b ? C.logMs(b.p99) : null; });
    C.chart(el('chart-e2e-over-time'), {
      title: 'End-to-end latency per second (log scale)', plugins: plugins, cursor: { sync: sync }, height: 200,
      scales: { x: { time: false }, y: { distr: 3, range: C.decades } },
      axes: [xAxis, { label: 'latency', values: C.logMsValues, size: yAxisSize }],
      series: [xSeries, { label: 'e2e p50', stroke: C.PALETTE[1], value: function (u, v) { return C.fmtMs(v); } }, { label: 'e2e p99', stroke: C.PALETTE[9], width: 2, value: function (u, v) { return C.fmtMs(v); } }]
    }, [xs, p50, p99]);
    var counts = {};
    anomalies.forEach(function (a) { counts[a.type] = (counts[a.type] || 0) + 1; });
    var legend = el('anomaly-legend');
    Object.keys(counts).forEach(function (type) { legend.appendChild(C.swatch(C.ANOMALY_COLORS[type] || '#000', type + ' ' + counts[type])); });
    if (!anomalies.length) legend.textContent = 'No anomaly occurrences to mark.';
  }

  function latencyCurves() {
    var curves = (r.latency && r.latency.curves) || {};
    var target = el('chart-latency-curves');
    if (!target) return;
    var metrics = [['publish', 'publish'], ['publishDelay', 'publish delay'], ['endToEnd', 'end-to-end']];
    var ps = [];
    metrics.forEach(function (m) { (curves[m[0]] || []).forEach(function (pt) { if (ps.indexOf(pt.percentile) < 0) ps.push(pt.percentile); }); });
    ps.sort(function (a, b) { return a - b; });
    var cols = [ps.map(C.tailX)];
    var series = [{ label: 'percentile', value: function (u, v, si, i) { return i === null || i === undefined ? '—' : 'p' + ps[i]; } }];
    metrics.forEach(function (m, k) {
      var byP = {};
      (curves[m[0]] || []).forEach(function (pt) { byP[pt.percentile] = pt.us; });
      cols.push(ps.map(function (p) { return byP[p] === undefined ? null : C.logMs(byP[p]); }));
      series.push({ label: m[1], stroke: C.PALETTE[[0, 3, 9][k]], width: 2, points: { show: true, size: 5 }, value: function (u, v) { return C.fmtMs(v); } });
    });
    var ax = C.curveAxes();
    C.chart(target, { title: 'Latency percentiles (log scale)', legend: { live: false }, scales: ax.scales, axes: ax.axes, series: series, height: 280 }, cols);
  }

  function skew() {
    var s = r.workload && r.workload.skew;
    if (!s || !el('chart-key-share')) return;
    var ranks = s.series.map(function (p) { return p.rank; });
    C.chart(el('chart-key-share'), {
      title: 'Traffic share by key rank', height: 240, legend: { live: false }, width: Math.max(320, el('chart-key-share').clientWidth || 440),
      scales: { x: { time: false, distr: 3, range: C.decades }, y: { distr: 3, range: C.decades }, cum: { range: [0, 100] } },
      axes: [
        { label: 'key rank', values: C.decadeValues(function (v) { return v.toLocaleString('en-US'); }) },
        { label: 'share', values: C.decadeValues(C.percent), size: 70 },
        { scale: 'cum', side: 1, label: 'cumulative', grid: { show: false }, size: 60, values: function (u, sp) { return sp.map(C.percent); } }
      ],
      series: [{ label: 'rank' }, { label: 'share %', stroke: C.PALETTE[0], width: 2, points: { show: true, size: 4 } }, { label: 'cumulative %', scale: 'cum', stroke: C.PALETTE[2], dash: [6, 4] }]
    }, [ranks, s.series.map(function (p) { return Math.max(1e-4, p.share * 100); }), s.series.map(function (p) { return p.cumulative * 100; })]);
    var lanes = s.lanes || [];
    if (!lanes.length) return;
    var idx = lanes.map(function (l, i) { return i; });
    C.chart(el('chart-lane-traffic'), {
      title: 'Traffic per lane (messages)', height: 240, legend: { live: false }, width: Math.max(320, el('chart-lane-traffic').clientWidth || 440),
      scales: { x: { time: false, range: [-0.6, lanes.length - 0.4] }, y: { range: function (u, min, max) { return [0, Math.max(1, max) * 1.1]; } } },
      axes: [{ splits: function () { return idx; }, values: function (u, sp) { return sp.map(function (i) { return lanes[i] ? lanes[i].lane : ''; }); } }, { label: 'messages', size: 70 }],
      series: [{ label: 'lane', value: function (u, v) { return lanes[v] ? lanes[v].lane : '—'; } }, { label: 'messages', fill: 'rgba(31,119,180,0.6)', stroke: C.PALETTE[0], paths: uPlot.paths.bars({ size: [0.6, 80] }), points: { show: false } }]
    }, [idx, lanes.map(function (l) { return l.messages; })]);
  }

  function keys() {
    var kd = data.keys;
    if (!kd) return;
    var tags = kd.tags;
    kd.keys.forEach(function (k, i) {
      var target = el('chart-key-' + i);
      if (!target) return;
      // Aligned data: one x column (landing time) shared by every series.
      var xs = [];
      var seen = {};
      k.points.forEach(function (p) { if (!seen[p[0]]) { seen[p[0]] = true; xs.push(p[0]); } });
      xs.sort(function (a, b) { return a - b; });
      var at = {};
      xs.forEach(function (x, j) { at[x] = j; });
      var blank = function () { return xs.map(function () { return null; }); };
      var cols = [xs];
      var series = [{ label: 's' }];
      k.consumers.forEach(function (c, ci) {
        var col = blank();
        k.points.forEach(function (p) { if (p[2] === ci) col[at[p[0]]] = p[1]; });
        cols.push(col);
        series.push({ label: c, stroke: C.PALETTE[ci % C.PALETTE.length], paths: noPath, points: { show: true, size: 5, fill: C.PALETTE[ci % C.PALETTE.length] } });
      });
      var shown = 0;
      tags.forEach(function (tag, ti) {
        var col = blank();
        var any = false;
        k.points.forEach(function (p) { if (p[3] === ti) { col[at[p[0]]] = p[1]; any = true; } });
        if (!any) return;
        shown++;
        cols.push(col);
        series.push({ label: tag, stroke: C.TAG_COLORS[tag], paths: noPath, points: { show: true, size: 13, width: 2, stroke: C.TAG_COLORS[tag], fill: 'rgba(255,255,255,0)' } });
      });
      var windows = (data.windows || []).map(function (w) {
        var rel = function (us) { return (us - kd.originUs) / 1e6; };
        return { name: w.name, from: w.start === null ? xs[0] : rel(w.start), to: w.end === null ? xs[xs.length - 1] : rel(w.end), until: w.until === null ? null : rel(w.until) };
      });
      C.chart(target, {
        title: 'Key ' + k.key + ': seq processed over time', height: 260, legend: { live: false }, plugins: [C.faultShading(windows)],
        scales: { x: { time: false } },
        axes: [{ values: C.secondsValues }, { label: 'seq', size: 60 }],
        series: series
      }, cols);
      target.dataset.highlighted = String(shown);
      var tagged = k.tagged || {};
      Object.keys(tagged).forEach(function (t) { target.dataset['tag' + t.charAt(0).toUpperCase() + t.slice(1)] = String(tagged[t]); });
    });
  }

  try {
    timeline();
    latencyCurves();
    skew();
    keys();
    document.body.dataset.chartsReady = 'true';
  } catch (e) {
    document.body.dataset.chartsError = String((e && e.stack) || e);
    throw e;
  }
})();
