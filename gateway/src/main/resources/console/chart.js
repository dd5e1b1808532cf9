// Plain canvas drawing for the console: a line chart with markers, and the fleet heatmap. No library.

const RAMP = [[48, 18, 59], [70, 98, 215], [26, 228, 182], [250, 186, 57], [210, 49, 5]];

/** The colour of t in 0..1 on a perceptual ramp (dark blue → green → orange-red). */
export function ramp(t) {
  const x = Math.max(0, Math.min(1, t)) * (RAMP.length - 1);
  const i = Math.min(RAMP.length - 2, Math.floor(x));
  const f = x - i;
  const c = RAMP[i].map((v, k) => Math.round(v + (RAMP[i + 1][k] - v) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function css(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** Sizes a canvas's backing store to its CSS box at the device's pixel ratio; returns its 2D context. */
function fit(canvas, height) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || canvas.parentElement.clientWidth;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.height = height + 'px';
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  return { g, width, height };
}

/**
 * A line chart of values spaced stepMs apart from `from` (ms), nulls as gaps, with vertical markers
 * [{at (ms), label, colour}].
 */
export function lineChart(canvas, { from, stepMs, values, unit, markers = [] }) {
  // the hour before the first reading is empty: start there, but show at least the last ten minutes
  const first = values.findIndex(v => v !== null && Number.isFinite(v));
  const skip = Math.max(0, Math.min(first < 0 ? 0 : first - 1, values.length - 30));
  from += skip * stepMs;
  values = values.slice(skip);
  const { g, width, height } = fit(canvas, 140);
  const left = 44, right = 8, top = 8, bottom = 18;
  const w = width - left - right, h = height - top - bottom;
  const fg = css('--fg'), muted = css('--muted'), line = css('--line'), accent = css('--accent');
  const present = values.filter(v => v !== null && Number.isFinite(v));
  let lo = present.length ? Math.min(...present) : 0;
  let hi = present.length ? Math.max(...present) : 1;
  if (unit === '%') { lo = 0; hi = Math.max(100, hi); }
  if (lo > 0 && lo < hi * 0.5) lo = 0;
  if (hi === lo) { hi = lo + 1; }
  const to = from + stepMs * (values.length - 1);
  const x = t => left + (t - from) / Math.max(1, to - from) * w;
  const y = v => top + h - (v - lo) / (hi - lo) * h;
  g.font = '11px system-ui, sans-serif';
  g.strokeStyle = line; g.fillStyle = muted; g.lineWidth = 1;
  for (const v of [lo, (lo + hi) / 2, hi]) {
    g.beginPath(); g.moveTo(left, y(v)); g.lineTo(left + w, y(v)); g.stroke();
    g.fillText(short(v), 2, y(v) + 4);
  }
  for (let k = 0; k <= 4; k++) {
    const t = from + (to - from) * k / 4;
    const label = new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    g.fillText(label, Math.min(x(t) - 14, left + w - 30), height - 4);
  }
  g.strokeStyle = accent; g.lineWidth = 1.5; g.beginPath();
  let open = false;
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) { open = false; return; }
    const px = x(from + i * stepMs), py = y(v);
    if (open) g.lineTo(px, py); else g.moveTo(px, py);
    open = true;
  });
  g.stroke();
  for (const m of markers) {
    if (m.at < from || m.at > to + stepMs) continue;
    g.strokeStyle = m.colour || css('--page'); g.setLineDash([4, 3]);
    g.beginPath(); g.moveTo(x(m.at), top); g.lineTo(x(m.at), top + h); g.stroke();
    g.setLineDash([]); g.fillStyle = m.colour || css('--page');
    g.fillText(m.label, Math.min(x(m.at) + 3, left + w - 60), top + 10);
  }
  if (!present.length) { g.fillStyle = fg; g.fillText('no readings in the last hour', left + 8, top + h / 2); }
}

export function short(v) {
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(1) + 'G';
  if (a >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
  if (a >= 100 || Number.isInteger(v)) return v.toFixed(0);
  return v.toFixed(2);
}

/**
 * The fleet heatmap: nodes in a flowing grid, each a row of its cards' cells coloured by value (grey when none),
 * outlined by the most urgent alert on the card. Returns a hit test (x, y) → {node, card} for hover and click.
 */
export function heatmap(canvas, nodes, { lo, hi }) {
  const total = nodes.reduce((n, node) => n + node.cards.length, 0);
  const cell = total <= 256 ? 26 : total <= 2048 ? 14 : 8;
  const gap = cell >= 14 ? 2 : 1;
  const labelH = cell >= 14 ? 14 : 0;
  const perNode = Math.max(1, ...nodes.map(n => n.cards.length));
  const blockW = perNode * (cell + gap) + 6;
  const blockH = cell + labelH + 6;
  const width = canvas.parentElement.clientWidth || 800;
  const cols = Math.max(1, Math.floor(width / blockW));
  const rows = Math.ceil(nodes.length / cols);
  const { g } = fit(canvas, Math.max(blockH, rows * blockH));
  canvas.style.width = width + 'px';
  const none = css('--line'), fg = css('--fg'), page = css('--page'), ticket = css('--ticket');
  g.font = '11px system-ui, sans-serif';
  const span = hi > lo ? hi - lo : 1;
  nodes.forEach((node, n) => {
    const bx = (n % cols) * blockW, by = Math.floor(n / cols) * blockH;
    if (labelH) {
      g.fillStyle = node.alert ? (node.alert === 'page' ? page : ticket) : fg;
      g.fillText(node.name + (node.connected ? '' : ' (silent)'), bx, by + 11);
    }
    node.cards.forEach((c, i) => {
      const x = bx + i * (cell + gap), y = by + labelH;
      g.fillStyle = c.value === null ? none : ramp((c.value - lo) / span);
      g.globalAlpha = node.connected ? 1 : 0.35;
      g.fillRect(x, y, cell, cell);
      g.globalAlpha = 1;
      if (c.alert) {
        g.strokeStyle = c.alert === 'page' ? page : ticket;
        g.lineWidth = cell >= 14 ? 2 : 1;
        g.strokeRect(x + 0.5, y + 0.5, cell - 1, cell - 1);
      }
    });
  });
  return (px, py) => {
    const col = Math.floor(px / blockW), row = Math.floor(py / blockH);
    const n = row * cols + col;
    if (col >= cols || n < 0 || n >= nodes.length) return null;
    const node = nodes[n];
    const i = Math.floor((px - col * blockW) / (cell + gap));
    const inY = py - row * blockH - labelH;
    if (i < 0 || i >= node.cards.length || inY < 0 || inY > cell) return null;
    return { node, card: node.cards[i] };
  };
}
