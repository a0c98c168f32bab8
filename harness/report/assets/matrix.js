/* convoy matrix page: each cell's merged latency percentile curves, overlaid (uPlot). */
(function () {
  'use strict';
  var C = window.ConvoyCharts;
  var data = C.readData('convoy-data');
  try {
    document.querySelectorAll('[data-chart="matrix-curves"]').forEach(function (el) {
      var which = el.dataset.latency;
      var cells = data.cells.filter(function (c) { return c.latency[which]; });
      if (cells.length === 0) return;
      var xs = cells[0].latency[which].curve.map(function (p) { return C.tailX(p.percentile); });
      var series = [{}];
      var cols = [xs];
      cells.forEach(function (c, i) {
        series.push({ label: c.label, stroke: C.PALETTE[i % C.PALETTE.length], width: 2, points: { show: true, size: 4 }, value: function (u, v) { return C.fmtMs(v); } });
        cols.push(c.latency[which].curve.map(function (p) { return C.logMs(p.us); }));
      });
      C.chart(el, Object.assign({ height: 280, series: series }, C.curveAxes()), cols);
    });
    document.body.dataset.chartsReady = 'true';
  } catch (e) {
    document.body.dataset.chartsError = String((e && e.stack) || e);
    throw e;
  }
})();
