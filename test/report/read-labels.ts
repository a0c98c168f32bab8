/**
 * Reads drawn tick labels back as a person would: the visible text parsed to a number in the
 * axis's scale units, then checked against the scale's value where the label sits.
 */
import assert from 'node:assert/strict';
import type { DrawnAxis, DrawnChart, DrawnLabel } from './drawn-text.ts';

export const tailX = (p: number): number => -Math.log10(1 - p / 100);

const DURATION_US: Record<string, number> = { 'µs': 1, ms: 1e3, s: 1e6 };

export interface Reading {
  /** In the axis's scale units. */
  value: number;
  /** Half the last shown digit, in scale units. */
  resolution: number;
}

/** How an axis's labels read: returns null for a label that does not parse. */
export type LabelKind =
  | { kind: 'duration'; scaleUs: number }
  | { kind: 'count' }
  | { kind: 'percent' }
  | { kind: 'percentile' }
  | { kind: 'names'; names: string[] }
  | { kind: 'utc' };

function decimalsOf(num: string): number {
  const i = num.indexOf('.');
  return i < 0 ? 0 : num.length - i - 1;
}

function num(text: string): number {
  return Number(text.replace(/,/g, ''));
}

/** "100 µs", "1.5 s", "12 ms": no leading zero, a unit on every label. */
function readDuration(text: string, scaleUs: number): Reading | string {
  const m = /^([-−]?)(\d[\d,]*(?:\.\d+)?) (µs|ms|s)$/.exec(text);
  if (!m) return `not a duration with its unit: "${text}"`;
  if (/^0\d|^0\./.test(m[2])) return `leading zero: "${text}"`;
  const us = (m[1] ? -1 : 1) * num(m[2]) * DURATION_US[m[3]];
  return { value: us / scaleUs, resolution: (0.5 * 10 ** -decimalsOf(m[2]) * DURATION_US[m[3]]) / scaleUs };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * "2026-11-29", "Nov 29" (midnight) or "06:00" (UTC), in seconds. A label without a year or a
 * day reads them from the position's value, as a reader reads them from the labels beside it.
 */
function readUtc(text: string, atS: number): Reading | string {
  const at = new Date(atS * 1000);
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m) return { value: Date.UTC(+m[1], +m[2] - 1, +m[3]) / 1000, resolution: 0.5 };
  m = /^([A-Z][a-z]{2}) (\d{1,2})$/.exec(text);
  if (m && MONTHS.includes(m[1])) return { value: Date.UTC(at.getUTCFullYear(), MONTHS.indexOf(m[1]), +m[2]) / 1000, resolution: 0.5 };
  m = /^(\d{2}):(\d{2})$/.exec(text);
  if (m) return { value: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), +m[1], +m[2]) / 1000, resolution: 0.5 };
  return `not a UTC date or time: "${text}"`;
}

export function readLabel(kind: LabelKind, text: string, at: number): Reading | string {
  switch (kind.kind) {
    case 'duration':
      return readDuration(text, kind.scaleUs);
    case 'count': {
      if (!/^-?\d[\d,]*(?:\.\d+)?$/.test(text)) return `not a number: "${text}"`;
      return { value: num(text), resolution: 0.5 * 10 ** -decimalsOf(text) };
    }
    case 'percent': {
      const m = /^(\d[\d,]*(?:\.\d+)?)%$/.exec(text);
      if (!m) return `not a percentage: "${text}"`;
      return { value: num(m[1]), resolution: 0.5 * 10 ** -decimalsOf(m[1]) };
    }
    case 'percentile': {
      const m = /^p(\d+(?:\.\d+)?)$/.exec(text);
      if (!m) return `not a percentile: "${text}"`;
      return { value: tailX(Number(m[1])), resolution: 1e-6 };
    }
    case 'names': {
      const i = kind.names.indexOf(text);
      return i < 0 ? `not one of the names: "${text}"` : { value: i, resolution: 1e-6 };
    }
    case 'utc':
      return readUtc(text, at);
  }
}

export interface AxisSpec {
  side: DrawnAxis['side'];
  label: LabelKind;
  /** A unit for labels that carry none (counts): the axis title drawn beside them. */
  title?: string;
  /** The lowest label reads 0 and sits at the plot's low edge. */
  fromZero?: boolean;
  /** Log scale: every label is a power of ten, and the end labels sit at the plot's edges. */
  decades?: boolean;
  /** Fewest labels a reader needs on this axis (default 2). */
  minLabels?: number;
}

/** Screen order along the axis: left to right, bottom to top. */
function screenOrder(axis: DrawnAxis): DrawnLabel[] {
  const horizontal = axis.side === 'bottom';
  return [...axis.labels].sort((a, b) => (horizontal ? a.pos - b.pos : b.pos - a.pos));
}

function isPowerOfTen(x: number): boolean {
  const e = Math.log10(x);
  return x > 0 && Math.abs(e - Math.round(e)) < 1e-6;
}

/** Every check of one axis of one chart; throws with what a reader would see. */
export function checkAxis(chart: DrawnChart, spec: AxisSpec): void {
  const where = `${chart.chart}${chart.id ? ` (${chart.id})` : ''}, ${spec.side} axis`;
  const axis = chart.axes.find((a) => a.side === spec.side);
  assert.ok(axis, `${where}: drawn`);
  const labels = screenOrder(axis).filter((l) => l.text !== '');
  assert.ok(labels.length >= (spec.minLabels ?? 2), `${where}: at least ${spec.minLabels ?? 2} labels, drew ${JSON.stringify(labels.map((l) => l.text))}`);
  const shown = labels.map((l) => l.visible);
  for (const l of labels) assert.equal(l.visible, l.text, `${where}: label "${l.text}" is cut off at the canvas edge and reads "${l.visible}" (all labels read ${JSON.stringify(shown)})`);
  if (spec.title !== undefined) {
    assert.equal(axis.title, spec.title, `${where}: titled with its unit`);
    assert.ok(axis.titleDrawn, `${where}: title "${spec.title}" drawn`);
  }
  const readings = labels.map((l) => {
    const r = readLabel(spec.label, l.visible, l.value);
    assert.ok(typeof r !== 'string', `${where}: ${r} (all labels read ${JSON.stringify(shown)})`);
    return r;
  });
  labels.forEach((l, i) => {
    const r = readings[i];
    const pixel = Math.abs(l.valueHi - l.valueLo) / 2;
    const tol = r.resolution + pixel + 1e-9 * Math.max(1, Math.abs(r.value));
    assert.ok(Math.abs(r.value - l.value) <= tol, `${where}: "${l.visible}" stands at ${l.value} (scale units), reads ${r.value} (all labels read ${JSON.stringify(shown)})`);
  });
  for (let i = 1; i < readings.length; i++) {
    assert.ok(readings[i].value > readings[i - 1].value, `${where}: labels increase along the axis, read ${JSON.stringify(shown)}`);
    const [a, b] = [labels[i - 1], labels[i]];
    const apart = axis.side === 'bottom' ? b.from >= a.to : a.from >= b.to;
    assert.ok(apart, `${where}: "${a.text}" and "${b.text}" overlap`);
  }
  const atLow = (l: DrawnLabel) => (axis.side === 'bottom' ? l.pos : axis.length - l.pos);
  if (spec.fromZero) {
    assert.equal(readings[0].value, 0, `${where}: starts at 0, read ${JSON.stringify(shown)}`);
    assert.ok(Math.abs(atLow(labels[0])) <= 1.5, `${where}: 0 sits at the bottom of the plot`);
  }
  if (spec.decades) {
    for (const [i, r] of readings.entries()) assert.ok(isPowerOfTen(r.value * (spec.label.kind === 'duration' ? spec.label.scaleUs : 1)), `${where}: "${labels[i].visible}" is a whole decade`);
    assert.ok(Math.abs(atLow(labels[0])) <= 1.5, `${where}: the lowest decade "${labels[0].visible}" sits at the plot's edge (read ${JSON.stringify(shown)})`);
    assert.ok(Math.abs(atLow(labels[labels.length - 1]) - axis.length) <= 1.5, `${where}: the highest decade "${labels[labels.length - 1].visible}" sits at the plot's edge (read ${JSON.stringify(shown)})`);
  }
}
