/* convoy: chart helpers shared by the run report and the dashboard (browser side, uPlot). */
(function () {
  'use strict';
  var PALETTE = ['#1f77b4', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f', '#d62728'];
  var ANOMALY_COLORS = {
    lost: '#000000', abandoned: '#7f7f7f', duplicate: '#17becf', reorder: '#d62728', regression: '#9467bd', gap: '#ff7f0e',
    overlap: '#e377c2', split: '#bcbd22', phantom: '#8c564b', ghost: '#393b79', 'unknown-delivered': '#aec7e8', retried: '#c49c94', displaced: '#f7b6d2'
  };
  var TAG_COLORS = { reorder: '#d62728', regression: '#9467bd', gap: '#ff7f0e', duplicate: '#17becf', overlap: '#e377c2', error: '#8c564b', incomplete: '#7f7f7f' };
  var charts = [];

  function readData(id) {
    var el = document.getElementById(id);
    return JSON.parse(el.textContent);
  }

  /** Creates a uPlot chart sized to its container and records what it holds in data-* attributes. */
  function chart(el, opts, data) {
    var width = Math.max(320, el.clientWidth || 900);
    var o = Object.assign({ width: width, height: 240 }, opts);
    var u = new uPlot(o, data, el);
    var series = 0;
    var points = 0;
    for (var i = 1; i < data.length; i++) {
      var n = 0;
      var col = data[i] || [];
      for (var j = 0; j < col.length; j++) if (col[j] !== null && col[j] !== undefined && !Number.isNaN(col[j])) n++;
      if (n > 0) series++;
      points += n;
    }
    el.dataset.series = String(series);
    el.dataset.points = String(points);
    el.dataset.ready = 'true';
    charts.push({ u: u, el: el });
    return u;
  }

  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      charts.forEach(function (c) {
        var w = Math.max(320, c.el.clientWidth || 900);
        if (Math.abs(w - c.u.width) > 4) c.u.setSize({ width: w, height: c.u.height });
      });
    }, 150);
  });

  /** Shades fault windows: [{from, to, until, name}] in x units (darker while active, lighter while settling). */
  function faultShading(windows) {
    return {
      hooks: {
        drawClear: [
          function (u) {
            var ctx = u.ctx;
            var top = u.bbox.top;
            var h = u.bbox.height;
            var left = u.bbox.left;
            var right = u.bbox.left + u.bbox.width;
            ctx.save();
            windows.forEach(function (w) {
              var x0 = Math.max(left, u.valToPos(w.from, 'x', true));
              var x1 = Math.min(right, u.valToPos(w.to, 'x', true));
              if (x1 > x0) {
                ctx.fillStyle = 'rgba(214, 39, 40, 0.13)';
                ctx.fillRect(x0, top, x1 - x0, h);
              }
              if (w.until !== null && w.until !== undefined) {
                var x2 = Math.min(right, u.valToPos(w.until, 'x', true));
                var x1b = Math.max(left, x1);
                if (x2 > x1b) {
                  ctx.fillStyle = 'rgba(214, 39, 40, 0.05)';
                  ctx.fillRect(x1b, top, x2 - x1b, h);
                }
              }
              if (x1 > x0 || w.to === null) {
                ctx.fillStyle = 'rgba(150, 20, 20, 0.8)';
                ctx.font = Math.round(11 * devicePixelRatio) + 'px sans-serif';
                ctx.fillText(w.name, x0 + 3 * devicePixelRatio, top + h - 4 * devicePixelRatio);
              }
            });
            ctx.restore();
          }
        ]
      }
    };
  }

  /**
   * Draws ticks along the top of the plot: [{x, color, type}], one row per type (in order of
   * first appearance) so that no type hides another.
   */
  function markers(list) {
    var rows = {};
    var n = 0;
    list.forEach(function (m) { if (!(m.type in rows)) rows[m.type] = n++; });
    return {
      hooks: {
        draw: [
          function (u) {
            var ctx = u.ctx;
            var top = u.bbox.top;
            var left = u.bbox.left;
            var right = u.bbox.left + u.bbox.width;
            var len = 6 * devicePixelRatio;
            var gap = 7 * devicePixelRatio;
            ctx.save();
            ctx.lineWidth = 2 * devicePixelRatio;
            list.forEach(function (m) {
              var x = u.valToPos(m.x, 'x', true);
              if (x < left || x > right) return;
              var y = top + rows[m.type] * gap;
              ctx.strokeStyle = m.color;
              ctx.beginPath();
              ctx.moveTo(x, y);
              ctx.lineTo(x, y + len);
              ctx.stroke();
            });
            ctx.restore();
          }
        ]
      }
    };
  }

  /** Short latency labels for axes and legends (v in ms). */
  function fmtMs(v) {
    if (v === null || v === undefined) return '—';
    if (v >= 1000) return (v / 1000).toFixed(v >= 10000 ? 1 : 2) + ' s';
    if (v >= 100) return v.toFixed(0) + ' ms';
    if (v >= 10) return v.toFixed(1) + ' ms';
    if (v >= 1) return v.toFixed(2) + ' ms';
    return v.toFixed(3) + ' ms';
  }

  /** The same text as the pages' tables (harness/report/format.ts formatMs): us in, ms out. */
  function formatMs(us) {
    if (us === null || us === undefined || !isFinite(us)) return '\u2014';
    var ms = us / 1000;
    var digits = ms < 1 ? 3 : ms < 10 ? 2 : ms < 100 ? 1 : 0;
    return ms.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) + ' ms';
  }

  /** Labels for a log axis: only at powers of ten (the other splits are grid lines). */
  function logMsValues(u, splits) {
    return splits.map(function (v) {
      var e = Math.log10(v);
      return Math.abs(e - Math.round(e)) < 1e-9 ? fmtMs(v) : '';
    });
  }

  /** Latency in ms for a log axis (which cannot show 0): at least 1 µs. */
  function logMs(us) {
    if (us === null || us === undefined) return null;
    return Math.max(0.001, us / 1000);
  }

  var tailX = function (p) { return -Math.log10(1 - p / 100); };
  var TAIL_TICKS = [50, 90, 99, 99.9, 99.99];

  /** Options for a percentile-curve chart: x stretches the tail, y is log ms. */
  function curveAxes() {
    return {
      scales: { x: { time: false, range: [tailX(50) - 0.05, tailX(99.99) + 0.05] }, y: { distr: 3 } },
      axes: [
        { splits: function () { return TAIL_TICKS.map(tailX); }, values: function (u, splits) { return splits.map(function (s, i) { return 'p' + TAIL_TICKS[i]; }); } },
        { values: logMsValues, size: 60 }
      ]
    };
  }

  function swatch(color, label) {
    var span = document.createElement('span');
    span.className = 'swatch';
    var dot = document.createElement('i');
    dot.style.background = color;
    span.appendChild(dot);
    span.appendChild(document.createTextNode(label));
    return span;
  }

  window.ConvoyCharts = {
    PALETTE: PALETTE, ANOMALY_COLORS: ANOMALY_COLORS, TAG_COLORS: TAG_COLORS,
    readData: readData, chart: chart, faultShading: faultShading, markers: markers,
    fmtMs: fmtMs, formatMs: formatMs, logMs: logMs, logMsValues: logMsValues, tailX: tailX, curveAxes: curveAxes, swatch: swatch, charts: charts
  };
})();
