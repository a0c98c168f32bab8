/*
 * convoy: how the report and the dashboard write durations, the one formatter of every chart
 * and table. An ES module for Node (harness/report/format.ts re-exports it); page.ts inlines
 * the same text into each page as window.ConvoyUnits (with the `export` keywords dropped), so
 * a table and a chart can never disagree on how a number reads.
 *
 * Durations are µs in, text out: µs, ms or s, the unit in which the value is at least 1 (no
 * leading zeros: "100 µs", not "0.100 ms").
 */

var UNITS = [['s', 1e6], ['ms', 1e3], ['µs', 1]];

function unitOf(absUs) {
  for (var i = 0; i < UNITS.length; i++) if (absUs >= UNITS[i][1] * (1 - 1e-9)) return UNITS[i];
  return UNITS[UNITS.length - 1];
}

function fixed(v, digits) {
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A duration (µs) with three significant figures: "344 µs", "2.99 ms", "50.1 ms", "1.44 s", "1,234 s". */
export function formatDuration(us) {
  if (us === null || us === undefined || !isFinite(us)) return '\u2014';
  if (us === 0) return '0 µs';
  var abs = Math.abs(us);
  var rounded = Number(abs.toPrecision(3));
  var unit = unitOf(rounded);
  var v = rounded / unit[1];
  var digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  return (us < 0 ? '−' : '') + fixed(v, digits) + ' ' + unit[0];
}

/** Decimals that write x exactly (0.25 -> 2, 5 -> 0), at most 6. */
function decimalsOf(x) {
  for (var d = 0; d < 6; d++) {
    var scaled = x * Math.pow(10, d);
    if (Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, scaled)) return d;
  }
  return 6;
}

/**
 * Tick labels for a linear axis of durations: `splits` in µs, `incrUs` the step between them.
 * Each tick in the unit that fits it, with the decimals the step needs in that unit and no
 * trailing zeros ("0 s", "500 ms", "1 s", "1.5 s"); 0 takes the unit of the step.
 */
export function durationTicks(splits, incrUs) {
  var step = Math.abs(incrUs) || 1;
  return splits.map(function (us) {
    if (us === null || us === undefined || !isFinite(us)) return '';
    if (Math.abs(us) < step * 1e-6) return '0 ' + unitOf(step)[0];
    var unit = unitOf(Math.abs(us));
    var text = (Math.abs(us) / unit[1]).toLocaleString('en-US', { maximumFractionDigits: decimalsOf(step / unit[1]) });
    return (us < 0 ? '−' : '') + text + ' ' + unit[0];
  });
}

/** Tick labels for a log axis of durations (µs): the powers of ten only, the other splits are grid lines. */
export function decadeTicks(splits) {
  return splits.map(function (us) {
    var e = Math.log10(us);
    return Math.abs(e - Math.round(e)) < 1e-9 ? durationTicks([us], us)[0] : '';
  });
}
