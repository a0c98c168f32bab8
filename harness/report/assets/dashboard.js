/* convoy dashboard: small trend charts per scenario, from the embedded run summaries. */
(function () {
  'use strict';
  var C = window.ConvoyCharts;
  var data = C.readData('convoy-data');
  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  var pad = function (n) { return (n < 10 ? '0' : '') + n; };
  /** Run start times in UTC (as the tables write them): steps of days as 2026-11-29; shorter steps as "Nov 29" at midnight and "06:00" between. */
  function utcValues(u, splits, axisIdx, space, incr) {
    return splits.map(function (s) {
      var d = new Date(s * 1000);
      if (incr >= 86400) return d.getUTCFullYear() + '-' + pad(d.getUTCMonth() + 1) + '-' + pad(d.getUTCDate());
      if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0) return MONTHS[d.getUTCMonth()] + ' ' + d.getUTCDate();
      return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes());
    });
  }
  try {
    document.querySelectorAll('[data-chart="trend"]').forEach(function (el) {
      var s = el.dataset.scenario;
      var runs = data.runs.filter(function (r) { return r.scenario === s && r.started; });
      var xs = runs.map(function (r) { return Date.parse(r.started) / 1000; });
      var lat = function (stat) { return runs.map(function (r) { var e = r.figures.latency.endToEnd; return e ? C.logMs(e[stat]) : null; }); };
      // One run: half a day either side (uPlot would span years for second-based times).
      var rate = runs.map(function (r) { return r.figures.processedRate; });
      C.chart(el, {
        height: 170, width: Math.max(300, el.clientWidth || 360), legend: { live: false },
        scales: { x: xs.length === 1 ? { range: [xs[0] - 43200, xs[0] + 43200] } : {}, y: { distr: 3, range: C.decades }, rate: { range: C.fromZero(0) } },
        axes: [{ values: utcValues, space: 60 }, { label: 'e2e latency', values: C.logMsValues, size: 75 }, { scale: 'rate', side: 1, label: 'msg/s', grid: { show: false }, size: 65 }],
        series: [{}, { label: 'e2e p50', stroke: C.PALETTE[1], points: { show: true, size: 5 } }, { label: 'e2e p99', stroke: C.PALETTE[9], width: 2, points: { show: true, size: 5 } }, { label: 'processed/s', scale: 'rate', stroke: C.PALETTE[0], dash: [4, 3], points: { show: true, size: 4 } }]
      }, [xs, lat('p50'), lat('p99'), rate]);
    });
    document.body.dataset.chartsReady = 'true';
  } catch (e) {
    document.body.dataset.chartsError = String((e && e.stack) || e);
    throw e;
  }
})();
