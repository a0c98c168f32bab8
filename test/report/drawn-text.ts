/**
 * What a person reads on a chart: uPlot 1.6 draws tick labels and axis titles on its canvas with
 * CanvasRenderingContext2D.fillText. RECORD_DRAWN_TEXT, run in the page before any script,
 * wraps fillText to record every string drawn, where, and which of its characters land inside
 * the canvas (a label pushed past the edge is cut off: "0.100 ms" reads "100 ms"). A full clear
 * of a canvas starts its list afresh, so the list is what is on screen now.
 */
export const RECORD_DRAWN_TEXT = `(() => {
  const P = CanvasRenderingContext2D.prototype;
  const fillText = P.fillText;
  const clearRect = P.clearRect;
  const drawn = new WeakMap();
  window.__drawnText = (canvas) => drawn.get(canvas) || [];
  P.clearRect = function (x, y, w, h) {
    if (x <= 0 && y <= 0 && x + w >= this.canvas.width && y + h >= this.canvas.height) drawn.set(this.canvas, []);
    return clearRect.apply(this, arguments);
  };
  P.fillText = function (text, x, y) {
    const s = String(text);
    const t = this.getTransform();
    const m = this.measureText(s);
    const start = this.textAlign === 'right' || this.textAlign === 'end' ? x - m.width : this.textAlign === 'center' ? x - m.width / 2 : x;
    const rotated = Math.abs(t.b) > 1e-6 || Math.abs(t.c) > 1e-6;
    let visible = '';
    if (!rotated) {
      const top = t.f + y - m.actualBoundingBoxAscent;
      const bottom = t.f + y + m.actualBoundingBoxDescent;
      const inY = top >= 0 && bottom <= this.canvas.height;
      for (let i = 0; i < s.length && inY; i++) {
        const a = t.e + start + this.measureText(s.slice(0, i)).width;
        const b = t.e + start + this.measureText(s.slice(0, i + 1)).width;
        if (a >= -0.5 && b <= this.canvas.width + 0.5) visible += s[i];
      }
    }
    const list = drawn.get(this.canvas) || [];
    list.push({ text: s, visible: visible.trim(), rotated, x: t.e + x, y: t.f + y, left: t.e + start, right: t.e + start + m.width,
      top: t.f + y - m.actualBoundingBoxAscent, bottom: t.f + y + m.actualBoundingBoxDescent });
    drawn.set(this.canvas, list);
    return fillText.apply(this, arguments);
  };
})();`;

export interface DrawnLabel {
  text: string;
  /** The characters that landed inside the canvas. */
  visible: string;
  /** Position along the axis in CSS px from the plot's start (left, or top for y axes). */
  pos: number;
  /** The scale's value at that position, and at 1.5 px either side (for the tolerance). */
  value: number;
  valueLo: number;
  valueHi: number;
  /** Extent along the axis in canvas px (for overlap). */
  from: number;
  to: number;
}

export interface DrawnAxis {
  side: 'bottom' | 'left' | 'right';
  scale: string;
  title: string | null;
  /** Whether the title was drawn whole. */
  titleDrawn: boolean;
  labels: DrawnLabel[];
  /** Plot length along this axis in CSS px. */
  length: number;
}

export interface DrawnChart {
  chart: string;
  id: string;
  axes: DrawnAxis[];
}

/**
 * Page-side (a string, so the test runner's transform leaves it alone): for every chart
 * (window.ConvoyCharts.charts), the strings drawn on its canvas, sorted to their axis by where
 * they were drawn, with the value of the scale at each label's position (uPlot's posToVal:
 * the chart's own mapping of pixels to values). Evaluates to DrawnChart[].
 */
export const READ_DRAWN_CHARTS = `window.ConvoyCharts.charts.map(function (c) {
  var u = c.u, el = c.el;
  var canvas = u.ctx.canvas;
  var ratio = canvas.width / u.width;
  var texts = window.__drawnText(canvas);
  var b = u.bbox;
  var axes = u.axes.filter(function (a) { return a.show !== false; }).map(function (a) {
    var side = a.side === 2 ? 'bottom' : a.side === 3 ? 'left' : 'right';
    var horizontal = side === 'bottom';
    var mine = texts.filter(function (t) {
      return !t.rotated && t.text !== a.label && (horizontal ? t.y > b.top + b.height : side === 'left' ? t.x < b.left : t.x > b.left + b.width);
    });
    var at = function (p) { return u.posToVal(p, a.scale); };
    var labels = mine.map(function (t) {
      var pos = horizontal ? (t.x - b.left) / ratio : (t.y - b.top) / ratio;
      return { text: t.text, visible: t.visible, pos: pos, value: at(pos), valueLo: at(pos - 1.5), valueHi: at(pos + 1.5), from: horizontal ? t.left : t.top, to: horizontal ? t.right : t.bottom };
    });
    var title = a.label == null ? null : a.label;
    var titleDrawn = title !== null && texts.some(function (t) { return t.text === title; });
    return { side: side, scale: a.scale, title: title, titleDrawn: titleDrawn, labels: labels, length: (horizontal ? b.width : b.height) / ratio };
  });
  return { chart: el.dataset.chart || '', id: el.id || el.dataset.scenario || '', axes: axes };
})`;
