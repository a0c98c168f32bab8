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

  var U = window.ConvoyUnits;

  /** Legend text for a latency held in ms (the charts' latency scales are ms). */
  function fmtMs(v) {
    return v === null || v === undefined ? '\u2014' : U.formatDuration(v * 1000);
  }

  /** Labels for a log axis in ms: only at powers of ten (the other splits are grid lines), each in its unit. */
  function logMsValues(u, splits) {
    return U.decadeTicks(splits.map(function (v) { return v * 1000; }));
  }

  /** Labels for a time axis in seconds: "0 s", "500 ms", "1 s", "1.5 s" (the step sets the decimals). */
  function secondsValues(u, splits, axisIdx, space, incr) {
    return U.durationTicks(splits.map(function (v) { return v * 1e6; }), incr * 1e6);
  }

  /** A log scale's range widened to whole decades, so that both ends carry a label. */
  function decades(u, min, max) {
    if (min === null || max === null || !(min > 0)) return [1, 10];
    return uPlot.rangeLog(min, max, 10, true);
  }

  /**
   * A rate or count scale from 0 to a round number above the data (and above `floor`, e.g. the
   * target rate): a steady run looks steady instead of a ±1 wobble filling the height.
   */
  function fromZero(floor) {
    return function (u, min, max) {
      var top = Math.max(max || 0, floor || 0, 1);
      return [0, uPlot.rangeNum(0, top, 0.1, true)[1]];
    };
  }

  /** Labels for a log axis: the powers of ten only, written by `write`. */
  function decadeValues(write) {
    return function (u, splits) {
      return splits.map(function (v) {
        var e = Math.log10(v);
        return Math.abs(e - Math.round(e)) < 1e-9 ? write(v) : '';
      });
    };
  }

  function percent(v) {
    return Number(v.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 6 }) + '%';
  }

  /** A horizontal reference line (e.g. the target rate) with its label, drawn under the series. */
  function referenceLine(value, label) {
    return {
      hooks: {
        drawClear: [
          function (u) {
            if (value === null || value === undefined) return;
            var y = u.valToPos(value, 'y', true);
            if (y < u.bbox.top || y > u.bbox.top + u.bbox.height) return;
            var ctx = u.ctx;
            ctx.save();
            ctx.strokeStyle = 'rgba(0,0,0,0.45)';
            ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
            ctx.lineWidth = devicePixelRatio;
            ctx.beginPath();
            ctx.moveTo(u.bbox.left, y);
            ctx.lineTo(u.bbox.left + u.bbox.width, y);
            ctx.stroke();
            ctx.fillStyle = 'rgba(0,0,0,0.6)';
            ctx.font = Math.round(11 * devicePixelRatio) + 'px sans-serif';
            ctx.textAlign = 'right';
            ctx.fillText(label, u.bbox.left + u.bbox.width - 4 * devicePixelRatio, y - 4 * devicePixelRatio);
            ctx.restore();
          }
        ]
      }
    };
  }

  /** Latency in ms for a log axis (which cannot show 0): at least 1 µs. */
  function logMs(us) {
    if (us === null || us === undefined) return null;
    return Math.max(0.001, us / 1000);
  }

  /** Step paths for per-bucket counts: the value holds from its bucket's start to the next. */
  var steps = uPlot.paths.stepped({ align: 1 });

  var tailX = function (p) { return -Math.log10(1 - p / 100); };
  var TAIL_TICKS = [50, 90, 99, 99.9, 99.99];

  /** Options for a percentile-curve chart: x stretches the tail, y is log ms. */
  function curveAxes() {
    return {
      scales: { x: { time: false, range: [tailX(50) - 0.05, tailX(99.99) + 0.05] }, y: { distr: 3, range: decades } },
      axes: [
        { splits: function () { return TAIL_TICKS.map(tailX); }, values: function (u, splits) { return splits.map(function (s, i) { return 'p' + TAIL_TICKS[i]; }); } },
        { label: 'latency', values: logMsValues, size: 70 }
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
    fmtMs: fmtMs, formatDuration: U.formatDuration, logMs: logMs, logMsValues: logMsValues, secondsValues: secondsValues,
    decades: decades, fromZero: fromZero, decadeValues: decadeValues, percent: percent, referenceLine: referenceLine, tailX: tailX, steps: steps, curveAxes: curveAxes, swatch: swatch, charts: charts
  };
})();
