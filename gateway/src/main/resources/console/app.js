// The gpuwatch console: one page, plain ES modules, talking to the gateway only through its documented API.
import { heatmap, lineChart, short } from './chart.js';

const $ = sel => document.querySelector(sel);
const main = $('#main');
const state = {
  me: null, alerts: [], rules: new Map(), groups: new Map(), silences: [], view: 'alerts', selected: 0,
  alertFilter: 'all', fleet: { layer: 'device', metric: 'gpuUtil', filters: {}, data: null, hit: null },
  events: null,
};

// ---- talking to the gateway ------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && state.me && state.me.csrf) headers['X-CSRF-Token'] = state.me.csrf;
  const res = await fetch(path, { method, headers, credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (res.status === 401 && path !== '/api/v1/session') { showLogin('Your session is over; log in again.'); }
  if (!res.ok) throw new ApiError(res.status, (json && json.error) || text || res.statusText);
  return json;
}

function toast(text, bad = false) {
  const d = document.createElement('div');
  d.textContent = text;
  if (bad) d.className = 'bad';
  $('#toast').append(d);
  setTimeout(() => d.remove(), bad ? 8000 : 4000);
}

// ---- small helpers ----------------------------------------------------------------------------------------

const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

/** A time in the browser's zone, with UTC on hover. */
function when(t) {
  if (t === null || t === undefined) return '<span class="muted">—</span>';
  const d = new Date(t);
  return `<time datetime="${d.toISOString()}" title="${d.toISOString().replace('.000Z', 'Z')} UTC">${esc(d.toLocaleString())}</time>`;
}

function ago(t) {
  const s = Math.max(0, Math.round((Date.now() - new Date(t).getTime()) / 1000));
  if (s < 90) return s + ' s';
  if (s < 5400) return Math.round(s / 60) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

const may = what => state.me && state.me.may[what];

function layerOf(a) {
  return a.labels.layer || (state.rules.get(a.rule) || {}).layer || '';
}

function states(a) {
  const out = [a.state];
  if (a.silencedBy.length) out.push('silenced');
  if (a.inhibitedBy.length) out.push('inhibited');
  if (a.acked) out.push('acknowledged');
  return out;
}

const SEVERITY = ['page', 'ticket', 'notice', 'inspect'];
const bySeverity = (a, b) => SEVERITY.indexOf(a.severity) - SEVERITY.indexOf(b.severity)
  || (b.activeSince - a.activeSince);

function runbook(a) {
  const url = a.annotations.runbook || a.annotations.runbook_url;
  if (!url) return '';
  // a path relative to the rule pack (no --runbook-base-url) is no link the browser could follow
  return /^https?:\/\//.test(url) ? `<a href="${esc(url)}" target="_blank" rel="noopener">runbook</a>`
    : `runbook <code>${esc(url)}</code>`;
}

function where(labels) {
  return ['node', 'uuid', 'task', 'business', 'owner'].filter(k => labels[k])
    .map(k => `<span class="mono">${esc(k)}=${esc(labels[k])}</span>`).join(' ');
}

// ---- login and the frame ----------------------------------------------------------------------------------

function showLogin(message) {
  if (state.events) { state.events.close(); state.events = null; }
  state.me = null;
  $('#top').hidden = true;
  main.hidden = true;
  $('#login').hidden = false;
  $('#login-error').textContent = message || '';
  $('#token').focus();
}

$('#login-form').addEventListener('submit', async e => {
  e.preventDefault();
  try {
    await api('POST', '/api/v1/session', { token: $('#token').value.trim() });
    $('#token').value = '';
    await start();
  } catch (err) {
    $('#login-error').textContent = err.status === 401 ? 'That token is not one this gateway knows.' : err.message;
  }
});

$('#logout').addEventListener('click', async () => {
  try { await api('DELETE', '/api/v1/session'); } catch (err) { toast(err.message, true); }
  showLogin('Logged out.');
});

async function start() {
  let me;
  try {
    me = await api('GET', '/api/v1/session');
  } catch (err) {
    showLogin(err.status === 401 ? '' : err.message);
    return;
  }
  state.me = me;
  document.body.dataset.role = me.role;
  $('#login').hidden = true;
  $('#top').hidden = false;
  main.hidden = false;
  $('#who').textContent = `${me.name} · ${me.role}`;
  $('#logout').hidden = !me.session;
  await loadRules();
  connect();
  route();
}

async function loadRules() {
  try {
    const r = await api('GET', '/api/v1/rules');
    state.rules = new Map(r.rules.map(x => [x.name, x]));
    state.rulesBody = r;
  } catch (err) { toast('rules: ' + err.message, true); }
}

/** Live updates: the alerts as they change, and a beat when the fleet's readings moved on. */
function connect() {
  if (state.events) state.events.close();
  const es = new EventSource('/api/v1/events');
  state.events = es;
  es.addEventListener('open', () => $('#live').classList.add('on'));
  es.addEventListener('error', () => $('#live').classList.remove('on'));
  es.addEventListener('ended', () => showLogin('Your session is over; log in again.'));
  es.addEventListener('alerts', e => {
    const body = JSON.parse(e.data);
    state.alerts = body.alerts;
    $('#alert-count').textContent = body.alerts.filter(a => a.state === 'firing').length || '';
    refreshGroups().then(() => { if (state.view === 'alerts') renderAlerts(); });
  });
  es.addEventListener('fleet', () => {
    if (state.view === 'fleet') loadFleet();
    if (state.view === 'card') renderCard(...state.args);
  });
}

async function refreshGroups() {
  try {
    const g = await api('GET', '/api/v1/groups');
    const m = new Map();
    for (const grp of g.groups) for (const a of grp.alerts) {
      if (!m.has(a.fingerprint)) m.set(a.fingerprint, grp);
    }
    state.groups = m;
  } catch { /* the alerts still show, ungrouped */ }
}

// ---- routing -----------------------------------------------------------------------------------------------

window.addEventListener('hashchange', route);

function route() {
  if (!state.me) return;
  const parts = (location.hash.replace(/^#\/?/, '') || 'alerts').split('/').map(decodeURIComponent);
  state.view = parts[0];
  state.args = parts.slice(1);
  document.querySelectorAll('header nav a').forEach(a => a.classList.toggle('on',
    a.dataset.view === state.view || (state.view === 'alert' && a.dataset.view === 'alerts')
    || (state.view === 'card' && a.dataset.view === 'fleet')));
  const views = { alerts: renderAlerts, alert: renderAlert, fleet: renderFleet, card: renderCard,
    tasks: renderTasks, rules: renderRules, silences: renderSilences };
  (views[state.view] || renderAlerts)(...state.args);
}

// ---- alerts ------------------------------------------------------------------------------------------------

const FILTERS = ['all', 'firing', 'pending', 'silenced', 'inhibited', 'acknowledged'];

function shownAlerts() {
  const f = state.alertFilter;
  return state.alerts.filter(a => f === 'all' || states(a).includes(f)).sort(bySeverity);
}

function renderAlerts() {
  if (state.view !== 'alerts') return;
  const shown = shownAlerts();
  state.selected = Math.min(state.selected, Math.max(0, shown.length - 1));
  const groups = new Map();
  for (const a of shown) {
    const g = state.groups.get(a.fingerprint);
    const key = g ? `${g.receiver} · ${Object.entries(g.groupLabels).map(([k, v]) => `${k}=${v}`).join(', ') || 'all'}`
      : a.state === 'pending' ? 'pending: not sent anywhere yet' : 'not in a delivery group now';
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(a);
  }
  const counts = Object.fromEntries(FILTERS.map(f => [f, f === 'all' ? state.alerts.length
    : state.alerts.filter(a => states(a).includes(f)).length]));
  let i = 0;
  main.innerHTML = `
    <div class="toolbar"><h2>Alerts</h2>
      <div class="tabs" id="alert-filters">${FILTERS.map(f => `<button type="button" data-f="${f}" class="${f === state.alertFilter ? 'on' : ''}">${f} ${counts[f]}</button>`).join('')}</div>
      <span class="kbd">j/k move · Enter open · a acknowledge · s silence</span></div>
    ${shown.length ? '' : '<p class="muted">No alerts here. Quiet is good.</p>'}
    ${[...groups].map(([key, list]) => `<section class="group"><h3>${esc(key)}</h3>
      ${list.map(a => alertRow(a, i++)).join('')}</section>`).join('')}`;
  main.querySelectorAll('#alert-filters button').forEach(b => b.addEventListener('click', () => {
    state.alertFilter = b.dataset.f; state.selected = 0; renderAlerts();
  }));
  main.querySelectorAll('.alert').forEach(el => el.addEventListener('click', e => {
    const fp = el.dataset.fp;
    const button = e.target.closest('button');
    if (button) { e.stopPropagation(); act(button.dataset.act, fp); return; }
    if (e.target.closest('a')) return;
    location.hash = '#/alert/' + fp;
  }));
}

function alertRow(a, i) {
  const s = states(a);
  const muted = s.includes('silenced') || s.includes('inhibited');
  const buttons = !may('change') || a.state !== 'firing' ? '' : (a.acked
    ? `<button type="button" data-act="unack">Unacknowledge</button>`
    : `<button type="button" data-act="ack">Acknowledge</button>`)
    + `<button type="button" data-act="silence">Silence like this</button>`;
  const summary = a.annotations.summary || a.annotations.description || '';
  return `<div class="alert${muted ? ' muted' : ''}${i === state.selected ? ' sel' : ''}" data-fp="${esc(a.fingerprint)}" data-rule="${esc(a.rule)}" data-state="${esc(s.join(' '))}">
    <div><span class="sev ${esc(a.severity)}">${esc(a.severity)}</span><div class="muted">${esc(layerOf(a))}</div></div>
    <div><span class="what">${esc(a.rule)}</span> ${s.map(x => `<span class="tag ${x}">${x}</span>`).join('')}
      <div>${esc(summary)}</div>
      <div>${where(a.labels)} ${a.labels.action ? `· action <strong>${esc(a.labels.action)}</strong>` : ''} ${runbook(a)}</div>
      <div class="muted">since ${when(a.activeSince)} (${ago(a.activeSince)})${a.acked ? ` · acknowledged by ${esc(a.acked.by)} ${when(a.acked.at)}` : ''}</div></div>
    <div class="act">${buttons}</div></div>`;
}

async function act(what, fp) {
  const a = state.alerts.find(x => x.fingerprint === fp);
  if (!a) return;
  try {
    if (what === 'ack') {
      await api('POST', `/api/v1/alerts/${fp}/ack`, { by: state.me.name, comment: 'from the console' });
      toast(`Acknowledged ${a.rule}`);
    } else if (what === 'unack') {
      await api('DELETE', `/api/v1/alerts/${fp}/ack`, { by: state.me.name });
      toast(`Took back the acknowledgement of ${a.rule}`);
    } else if (what === 'silence') {
      silenceDialog(a.labels);
    }
  } catch (err) { toast(`${what}: ${err.message}`, true); }
}

document.addEventListener('keydown', e => {
  if (!state.me || e.target.closest('input, textarea, select, dialog') || e.ctrlKey || e.metaKey || e.altKey) return;
  if (state.view !== 'alerts') return;
  const shown = shownAlerts();
  if (!shown.length) return;
  if (e.key === 'j' || e.key === 'k') {
    state.selected = Math.max(0, Math.min(shown.length - 1, state.selected + (e.key === 'j' ? 1 : -1)));
    renderAlerts();
    const sel = main.querySelector('.alert.sel');
    if (sel) sel.scrollIntoView({ block: 'nearest' });
  } else if (e.key === 'Enter') {
    location.hash = '#/alert/' + shown[state.selected].fingerprint;
  } else if (e.key === 'a' && may('change')) {
    const a = shown[state.selected];
    act(a.acked ? 'unack' : 'ack', a.fingerprint);
  } else if (e.key === 's' && may('change')) {
    act('silence', shown[state.selected].fingerprint);
  }
});

// ---- silences: the dialog used from an alert and from the silences page ------------------------------------

function silenceDialog(labels) {
  const dialog = $('#dialog');
  const keys = Object.keys(labels).filter(k => labels[k]);
  const preset = new Set(['alertname', 'node', 'uuid'].filter(k => labels[k]));
  if (!preset.size && keys.length) preset.add(keys[0]);
  dialog.innerHTML = `<form method="dialog" id="silence-form"><h2>Silence alerts like this</h2>
    <div class="matchers">${keys.map(k => `<label><input type="checkbox" name="m" value="${esc(k)}"${preset.has(k) ? ' checked' : ''}>
      <span class="mono">${esc(k)}="${esc(labels[k])}"</span></label>`).join('')}
      <label>extra matcher <input name="extra" placeholder='node=~"gpu-[0-3]"' class="mono"></label></div>
    <label>for <select name="hours"><option value="1">1 hour</option><option value="2" selected>2 hours</option>
      <option value="4">4 hours</option><option value="24">1 day</option></select></label>
    <label>comment <input name="comment" required placeholder="why (re-cabling rack 3, ticket …)"></label>
    <div id="silence-preview" class="muted">…</div>
    <p class="error" id="silence-error"></p>
    <div><button type="submit" class="primary" value="create">Create silence</button> <button type="button" id="silence-cancel">Cancel</button></div></form>`;
  const form = dialog.querySelector('form');
  const matchers = () => [...form.querySelectorAll('input[name=m]:checked')]
    .map(i => `${i.value}=${JSON.stringify(labels[i.value])}`)
    .concat(form.extra.value.trim() ? [form.extra.value.trim()] : []);
  const preview = async () => {
    const out = dialog.querySelector('#silence-preview');
    try {
      const p = await api('POST', '/api/v1/silences/preview', { matchers: matchers() });
      out.innerHTML = `Would mute <strong>${p.total}</strong> firing alert${p.total === 1 ? '' : 's'} now: `
        + p.alerts.slice(0, 10).map(a => `${esc(a.rule)} <span class="muted">${where(a.labels)}</span>`).join('; ');
    } catch (err) { out.textContent = err.message; }
  };
  form.addEventListener('change', preview);
  form.extra.addEventListener('input', preview);
  dialog.querySelector('#silence-cancel').addEventListener('click', () => dialog.close());
  form.addEventListener('submit', async e => {
    e.preventDefault();
    const ends = new Date(Date.now() + Number(form.hours.value) * 3600_000).toISOString();
    try {
      const made = await api('POST', '/api/v1/silences', { matchers: matchers(), endsAt: ends,
        createdBy: state.me.name, comment: form.comment.value });
      dialog.close();
      toast(`Silence ${made.id.slice(0, 8)} made until ${new Date(ends).toLocaleString()}`);
      if (state.view === 'silences') renderSilences();
    } catch (err) { dialog.querySelector('#silence-error').textContent = err.message; }
  });
  dialog.showModal();
  preview();
}

// ---- one alert: the incident review --------------------------------------------------------------------------

async function renderAlert(fp) {
  let d;
  try { d = await api('GET', `/api/v1/alerts/${encodeURIComponent(fp)}`); } catch (err) {
    main.innerHTML = `<p class="error">${esc(err.message)}</p>`; return;
  }
  const a = d.alert;
  const buttons = may('change') && a.state === 'firing' ? (a.acked
    ? `<button type="button" data-act="unack">Unacknowledge</button>`
    : `<button type="button" data-act="ack">Acknowledge</button>`) + ` <button type="button" data-act="silence">Silence like this</button>` : '';
  main.innerHTML = `<p><a href="#/alerts">← alerts</a></p>
    <div class="toolbar"><span class="sev ${esc(a.severity)}">${esc(a.severity)}</span><h2>${esc(a.rule)}</h2>
      ${states(a).map(x => `<span class="tag ${x}">${x}</span>`).join('')} ${buttons}
      <button type="button" id="export">Export review as Markdown</button></div>
    <p>${esc(a.annotations.summary || '')}</p>
    <p>${where(a.labels)} ${a.labels.action ? `· action <strong>${esc(a.labels.action)}</strong>` : ''} ${runbook(a)} · layer ${esc(layerOf(a))}</p>
    <div class="cols"><div class="panel"><h3>Timeline</h3><ul class="timeline" id="timeline">
      ${d.timeline.map(ev => `<li>${when(ev.at)} <strong>${esc(ev.event)}</strong> ${esc(ev.by ? 'by ' + ev.by : '')} ${esc(ev.comment || '')} ${ev.silence ? `<span class="mono">${esc(ev.silence.slice(0, 8))}</span>` : ''}</li>`).join('')}
      </ul><h3>Notifications</h3>${d.deliveries === null ? '<p class="muted">not recorded: this gateway runs without --data-dir</p>'
        : d.deliveries.length ? `<table><tr><th>receiver</th><th>told</th><th>queued</th><th>state</th><th>attempts</th></tr>
        ${d.deliveries.map(x => `<tr><td>${esc(x.receiver)}</td><td>${esc(x.status)}</td><td>${when(x.queuedAt)}</td><td>${esc(x.state)}</td><td>${x.attempts.map(t => `${esc(t.outcome)}${t.error ? ': ' + esc(t.error) : ''}`).join('<br>')}</td></tr>`).join('')}</table>`
        : '<p class="muted">none yet</p>'}</div>
      <div class="panel"><h3>Details</h3><table>${Object.entries(a.labels).map(([k, v]) => `<tr><th>${esc(k)}</th><td class="mono">${esc(v)}</td></tr>`).join('')}
        ${Object.entries(a.annotations).map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table></div></div>
    <h3>Signals around it</h3><div id="alert-charts" class="cols"></div>`;
  main.querySelectorAll('button[data-act]').forEach(b => b.addEventListener('click', async () => {
    await act(b.dataset.act, a.fingerprint); if (b.dataset.act !== 'silence') renderAlert(fp);
  }));
  const card = a.labels.node && a.labels.uuid ? await fetchCard(a.labels.node, a.labels.uuid) : null;
  main.querySelector('#export').addEventListener('click', () => exportReview(d, card));
  const charts = main.querySelector('#alert-charts');
  if (card) {
    drawCharts(charts, card, [{ at: a.activeSince, label: 'active' }].concat(a.firedAt ? [{ at: a.firedAt, label: 'fired' }] : []));
  } else if (a.labels.node) {
    nodeCharts(charts, a);
  } else {
    charts.innerHTML = '<p class="muted">This alert is not about one card.</p>';
  }
}

/** A node-level alert: each card of the node, its utilisation with the alert and the card's XIDs marked. */
async function nodeCharts(into, a) {
  let f;
  try { f = await api('GET', `/api/v1/fleet?metric=xids1h&node=${encodeURIComponent(a.labels.node)}`); } catch (err) {
    into.textContent = err.message; return;
  }
  const node = f.nodes[0];
  if (!node) { into.innerHTML = '<p class="muted">The node is no longer known.</p>'; return; }
  const cards = (await Promise.all(node.cards.map(c => fetchCard(node.name, c[1])))).filter(Boolean);
  const marks = [{ at: a.activeSince, label: 'active' }];
  into.innerHTML = cards.map((c, i) => `<div class="panel"><h3><a href="#/card/${encodeURIComponent(c.node)}/${encodeURIComponent(c.uuid)}">${esc(c.node)} card ${esc(c.index ?? '?')}</a>
    <span class="muted">utilisation % · ${c.events.filter(e => e.kind === 'xid').length} XIDs in the hour</span></h3><canvas class="chart" data-i="${i}"></canvas></div>`).join('');
  into.querySelectorAll('canvas').forEach(cv => {
    const c = cards[Number(cv.dataset.i)];
    const xids = c.events.filter(e => e.kind === 'xid').map(e => ({ at: Date.parse(e.at), label: 'XID ' + e.code, colour: '#8e24aa' }));
    lineChart(cv, { from: Date.parse(c.series.from), stepMs: c.series.stepMs, values: c.series.metrics.gpuUtil, unit: '%', markers: marks.concat(xids) });
  });
}

async function fetchCard(node, uuid) {
  try { return await api('GET', `/api/v1/fleet/${encodeURIComponent(node)}/${encodeURIComponent(uuid)}`); } catch { return null; }
}

function exportReview(d, card) {
  const a = d.alert;
  const utc = t => t ? new Date(t).toISOString().replace('.000Z', 'Z') : '—';
  const lines = [`# Incident review: ${a.rule} (${a.severity})`, '',
    `- Fingerprint: \`${a.fingerprint}\``, `- Layer: ${layerOf(a) || '—'}`, `- State: ${states(a).join(', ')}`,
    `- Active since: ${utc(a.activeSince)}`, `- Fired: ${utc(a.firedAt)}`, `- Resolved: ${utc(a.resolvedAt)}`,
    `- Where: ${['node', 'uuid', 'task', 'owner', 'business'].filter(k => a.labels[k]).map(k => `${k}=${a.labels[k]}`).join(', ') || '—'}`,
    `- Action: ${a.labels.action || '—'}`, `- Runbook: ${a.annotations.runbook || '—'}`, '',
    `## Summary`, '', a.annotations.summary || a.annotations.description || '—', '',
    '## Timeline (UTC)', '', '| at | event | by | comment |', '|---|---|---|---|',
    ...d.timeline.map(e => `| ${utc(e.at)} | ${e.event}${e.silence ? ' ' + e.silence : ''} | ${e.by || ''} | ${(e.comment || '').replace(/\|/g, '\\|')} |`), '',
    '## Notifications', ''];
  if (d.deliveries === null) lines.push('Not recorded (the gateway ran without --data-dir).');
  else if (!d.deliveries.length) lines.push('None.');
  else {
    lines.push('| receiver | told | queued | state | attempts |', '|---|---|---|---|---|');
    d.deliveries.forEach(x => lines.push(`| ${x.receiver} | ${x.status} | ${utc(x.queuedAt)} | ${x.state} | ${x.attempts.map(t => t.outcome + (t.error ? ': ' + t.error : '')).join('; ')} |`));
  }
  if (card) {
    lines.push('', '## The card', '', `- ${card.node} / ${card.uuid} (${card.name || 'card'} #${card.index ?? '?'})`,
      `- Task: ${card.task || '—'}, owner: ${card.owner || '—'}, business: ${card.business || '—'}`,
      `- Latest: ${Object.entries(card.latest).filter(([, v]) => v !== null).map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `- Events in the last hour: ${card.events.map(e => `${e.kind} ${e.code} at ${utc(e.at)}`).join('; ') || 'none'}`);
  }
  const md = lines.join('\n') + '\n';
  const dialog = $('#dialog');
  const url = URL.createObjectURL(new Blob([md], { type: 'text/markdown' }));
  dialog.innerHTML = `<h2>Incident review</h2><pre class="md" id="review-md">${esc(md)}</pre>
    <p><a id="review-download" href="${url}" download="incident-${esc(a.rule)}-${esc(a.fingerprint)}.md">Download .md</a>
    <button type="button" id="review-close">Close</button></p>`;
  dialog.querySelector('#review-close').addEventListener('click', () => { dialog.close(); URL.revokeObjectURL(url); });
  dialog.showModal();
}

// ---- fleet ---------------------------------------------------------------------------------------------------

const LAYERS = ['device', 'scheduling', 'application', 'business'];

function renderFleet() {
  main.innerHTML = `<div class="toolbar"><h2>Fleet</h2>
    <div class="tabs" id="layers">${LAYERS.map(l => `<button type="button" data-layer="${l}" class="${l === state.fleet.layer ? 'on' : ''}">${l}</button>`).join('')}</div>
    <label>colour by <select id="metric"></select></label>
    <span id="filters"></span>
    <span class="legend"><span id="lo"></span><span class="ramp"></span><span id="hi"></span></span>
    <span id="fleet-stats" class="muted"></span></div>
    <div id="heatmap-wrap"><canvas id="heatmap"></canvas><div id="tip" hidden></div></div>`;
  main.querySelectorAll('#layers button').forEach(b => b.addEventListener('click', () => {
    state.fleet.layer = b.dataset.layer;
    const first = (state.fleet.data?.metrics || []).find(m => m.layer === b.dataset.layer);
    if (first) state.fleet.metric = first.key;
    renderFleet();
  }));
  const canvas = main.querySelector('#heatmap');
  const tip = main.querySelector('#tip');
  canvas.addEventListener('mousemove', e => {
    const hit = state.fleet.hit && state.fleet.hit(e.offsetX, e.offsetY);
    tip.hidden = !hit;
    if (!hit) return;
    const m = state.fleet.data.metrics.find(x => x.key === state.fleet.data.metric);
    const c = hit.card;
    tip.innerHTML = `<strong>${esc(hit.node.name)}</strong> #${c.index} <span class="mono">${esc(c.uuid)}</span><br>
      ${esc(m.label)}: ${c.value === null ? '—' : short(c.value) + ' ' + esc(m.unit)}<br>
      ${c.task ? `task ${esc(c.task)} · owner ${esc(c.owner || '—')} · ${esc(c.business || '—')}` : 'no task'}${c.alert ? `<br>alert: ${esc(c.alert)}` : ''}`;
    tip.style.left = (e.offsetX + 14) + 'px';
    tip.style.top = (e.offsetY + 14) + 'px';
  });
  canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
  canvas.addEventListener('click', e => {
    const hit = state.fleet.hit && state.fleet.hit(e.offsetX, e.offsetY);
    if (hit) location.hash = `#/card/${encodeURIComponent(hit.node.name)}/${encodeURIComponent(hit.card.uuid)}`;
  });
  loadFleet();
}

window.gpuwatchTimings = [];

async function loadFleet() {
  const t0 = performance.now();
  let data;
  try { data = await api('GET', '/api/v1/fleet?metric=' + encodeURIComponent(state.fleet.metric)); } catch (err) {
    toast('fleet: ' + err.message, true); return;
  }
  if (state.view !== 'fleet') return;
  const t1 = performance.now();
  state.fleet.data = data;
  drawFleet();
  const t2 = performance.now();
  const cards = data.nodes.reduce((n, x) => n + x.cards.length, 0);
  window.gpuwatchTimings.push({ cards, fetchMs: t1 - t0, drawMs: t2 - t1, totalMs: t2 - t0 });
  const s = main.querySelector('#fleet-stats');
  if (s) s.textContent = `${cards} cards on ${data.nodes.length} nodes · ${when(data.at).replace(/<[^>]+>/g, '')} · drawn in ${Math.round(t2 - t1)} ms`;
}

function drawFleet() {
  const data = state.fleet.data;
  const sel = main.querySelector('#metric');
  if (!sel || !data) return;
  sel.innerHTML = data.metrics.filter(m => m.layer === state.fleet.layer)
    .map(m => `<option value="${m.key}"${m.key === data.metric ? ' selected' : ''}>${esc(m.label)}</option>`).join('');
  sel.onchange = () => { state.fleet.metric = sel.value; loadFleet(); };
  const str = i => i === null ? null : data.strings[i];
  const nodes = data.nodes.map(n => ({ name: n.name, connected: n.connected, alert: n.alert, labels: n.labels,
    cards: n.cards.map(c => ({ index: c[0], uuid: c[1], value: c[2], task: str(c[3]), owner: str(c[4]), business: str(c[5]), alert: c[6] })) }));
  // filters: cluster and pool from the node's labels, business and owner from its cards
  const choices = { cluster: new Set(), pool: new Set(), business: new Set(), owner: new Set() };
  nodes.forEach(n => {
    if (n.labels.cluster) choices.cluster.add(n.labels.cluster);
    if (n.labels.pool) choices.pool.add(n.labels.pool);
    n.cards.forEach(c => { if (c.business) choices.business.add(c.business); if (c.owner) choices.owner.add(c.owner); });
  });
  const f = state.fleet.filters;
  const filters = main.querySelector('#filters');
  filters.innerHTML = Object.entries(choices).map(([k, set]) => `<label>${k} <select data-k="${k}"><option value="">all</option>
    ${[...set].sort().map(v => `<option${f[k] === v ? ' selected' : ''}>${esc(v)}</option>`).join('')}</select></label>`).join(' ');
  filters.querySelectorAll('select').forEach(s => { s.onchange = () => { f[s.dataset.k] = s.value; drawFleet(); }; });
  const shown = nodes.filter(n => (!f.cluster || n.labels.cluster === f.cluster) && (!f.pool || n.labels.pool === f.pool))
    .map(n => ({ ...n, cards: n.cards.filter(c => (!f.business || c.business === f.business) && (!f.owner || c.owner === f.owner)) }))
    .filter(n => n.cards.length);
  const metric = data.metrics.find(m => m.key === data.metric);
  const values = shown.flatMap(n => n.cards.map(c => c.value)).filter(v => v !== null);
  const fixed = { '%': [0, 100], ratio: [0, 1], '0/1': [0, 1], '°C': [30, 95] }[metric.unit];
  let [lo, hi] = fixed || [0, values.length ? Math.max(...values) : 1];
  if (!fixed && hi <= lo) hi = lo + 1;
  main.querySelector('#lo').textContent = short(lo);
  main.querySelector('#hi').textContent = short(hi) + ' ' + metric.unit;
  state.fleet.hit = heatmap(main.querySelector('#heatmap'), shown, { lo, hi });
}

// ---- one card --------------------------------------------------------------------------------------------------

const CHARTS = [['gpuUtil', 'utilisation', '%'], ['smActive', 'SM active', 'ratio'], ['tempC', 'temperature', '°C'],
  ['powerW', 'power', 'W'], ['memUsedBytes', 'memory used', 'bytes'], ['clockEventReasons', 'clock-event reasons', 'mask']];

async function renderCard(node, uuid) {
  const c = await fetchCard(node, uuid);
  if (state.view !== 'card') return;
  if (!c) { main.innerHTML = `<p class="error">No card ${esc(uuid)} on ${esc(node)}.</p>`; return; }
  main.innerHTML = `<p><a href="#/fleet">← fleet</a></p>
    <h2>${esc(c.node)} · card ${esc(c.index ?? '?')} <span class="mono muted">${esc(c.uuid)}</span></h2>
    <p>${esc(c.name || '')} · task <strong>${esc(c.task || '—')}</strong> · owner ${esc(c.owner || '—')} · business ${esc(c.business || '—')}
      ${c.connected ? '' : ' · <span class="error">node silent</span>'}</p>
    <p class="muted">${Object.entries(c.latest).filter(([, v]) => v !== null).map(([k, v]) => `${esc(k)} ${short(v)}`).join(' · ')}</p>
    <h3>Alerts in the last hour</h3>${c.alerts.length ? `<ul>${c.alerts.map(a => `<li><a href="#/alert/${esc(a.fingerprint)}">${esc(a.rule)}</a> <span class="sev ${esc(a.severity)}">${esc(a.severity)}</span> ${esc(a.state)} since ${when(a.activeSince)}</li>`).join('')}</ul>` : '<p class="muted">none</p>'}
    <h3>Events</h3><p>${c.events.map(e => `${esc(e.kind)} ${esc(e.code)} at ${when(e.at)}`).join('; ') || '<span class="muted">none in the last hour</span>'}</p>
    <div id="card-charts" class="cols"></div>`;
  drawCharts(main.querySelector('#card-charts'), c, c.alerts.map(a => ({ at: Date.parse(a.activeSince), label: a.rule })));
}

function drawCharts(into, card, markers) {
  const from = Date.parse(card.series.from);
  const xids = card.events.filter(e => e.kind === 'xid').map(e => ({ at: Date.parse(e.at), label: 'XID ' + e.code, colour: '#8e24aa' }));
  into.innerHTML = CHARTS.map(([k, label, unit]) => `<div class="panel"><h3>${label} <span class="muted">${unit}</span></h3><canvas class="chart" data-k="${k}"></canvas></div>`).join('');
  into.querySelectorAll('canvas').forEach(cv => lineChart(cv, { from, stepMs: card.series.stepMs,
    values: card.series.metrics[cv.dataset.k] || [], unit: cv.dataset.k === 'gpuUtil' ? '%' : '',
    markers: markers.concat(xids) }));
}

// ---- tasks, rules, silences -------------------------------------------------------------------------------------

async function renderTasks() {
  let t;
  try { t = await api('GET', '/api/v1/tasks'); } catch (err) { main.innerHTML = `<p class="error">${esc(err.message)}</p>`; return; }
  const n = v => v === null || v === undefined ? '<span class="muted">—</span>' : short(v);
  const byBusiness = new Map();
  t.tasks.forEach(x => {
    const b = x.business || '(no business)';
    if (!byBusiness.has(b)) byBusiness.set(b, []);
    byBusiness.get(b).push(x);
  });
  const summary = list => {
    const cards = list.reduce((a, x) => a + x.cards.length, 0);
    const tokens = list.reduce((a, x) => a + (x.tokensPerSec || 0), 0);
    const priced = list.filter(x => x.costPerMillionTokens !== null && x.tokensPerSec);
    // the business's cost per million tokens: its tasks' costs weighted by their tokens
    const cost = priced.length ? priced.reduce((a, x) => a + x.costPerMillionTokens * x.tokensPerSec, 0)
      / priced.reduce((a, x) => a + x.tokensPerSec, 0) : null;
    return `${list.length} task${list.length === 1 ? '' : 's'} · ${cards} card${cards === 1 ? '' : 's'}`
      + (tokens ? ` · ${short(tokens)} tokens/s` : '') + (cost !== null ? ` · ${short(cost)} per million tokens` : '');
  };
  main.innerHTML = `<h2>Tasks and businesses</h2>
    ${[...byBusiness].sort(([a], [b]) => a.localeCompare(b)).map(([b, list]) => `<section class="group" data-business="${esc(b)}">
      <h3>${esc(b)} <span class="muted">${summary(list)}</span></h3><table>
      <tr><th>task</th><th>owner</th><th>queue</th><th>cards</th><th>tokens/s</th><th>TTFT P99 ms</th><th>latency P99 ms</th><th>idle</th><th>per million tokens</th></tr>
      ${list.map(x => `<tr><td>${esc(x.name)}</td><td>${esc(x.owner || '—')}</td><td>${esc(x.queue || '—')}</td>
        <td>${x.cards.map(c => `<a href="#/card/${encodeURIComponent(c.node)}/${encodeURIComponent(c.uuid)}">${esc(c.node)}#${esc(c.index ?? '?')}</a>`).join(' ')}</td>
        <td>${n(x.tokensPerSec)}</td><td>${n(x.ttftP99Ms)}</td><td>${n(x.latencyP99Ms)}</td>
        <td>${x.idleRatio === null ? '—' : Math.round(x.idleRatio * 100) + ' %'}</td><td>${n(x.costPerMillionTokens)}</td></tr>`).join('')}</table></section>`).join('')}
    ${t.tasks.length ? '' : '<p class="muted">No task reported by the fleet now.</p>'}`;
}

async function renderRules() {
  await loadRules();
  const r = state.rulesBody;
  if (!r) return;
  const byGroup = new Map();
  r.rules.forEach(x => { if (!byGroup.has(x.group)) byGroup.set(x.group, []); byGroup.get(x.group).push(x); });
  const reload = r.reload;
  main.innerHTML = `<h2>Rules</h2>
    ${may('change') ? previewPanel(r.rules) : ''}
    ${reload ? `<p>Last reload ${when(reload.at)} (${esc(reload.trigger)}): ${reload.ok ? 'ok' : '<span class="error">refused, old rules kept</span>'}</p>
      ${reload.diagnostics.length ? `<pre class="md">${esc(reload.diagnostics.map(d => d.text).join('\n'))}</pre>` : ''}` : '<p class="muted">A fixed rule set (no rule files to reload).</p>'}
    ${[...byGroup].map(([g, list]) => `<section class="group"><h3>${esc(g || '(no group)')}</h3><table>
      <tr><th>rule</th><th>layer</th><th>scope</th><th>severity</th><th>pending</th><th>firing</th><th>evaluation µs (mean, last)</th><th>where</th></tr>
      ${list.map(x => `<tr><td><strong>${esc(x.name)}</strong>${x.disabled ? `<div class="error">disabled: ${esc(x.disabledReason)}</div>` : ''}${x.error ? `<div class="error">${esc(x.error)}</div>` : ''}<div class="mono muted">${esc(x.when)}</div></td>
        <td>${esc(x.layer)}</td><td>${esc(x.scope)}</td><td><span class="sev ${esc(x.severity)}">${esc(x.severity)}</span></td>
        <td>${x.pending ?? 0}</td><td>${x.firing ?? 0}</td>
        <td title="${esc(x.evaluations)} evaluations since the rules were loaded">${x.evaluations ? `${short(x.meanEvaluationMicros)}, ${short(x.lastEvaluationMicros)}` : '—'}</td>
        <td class="mono">${esc(x.location)}</td></tr>`).join('')}</table></section>`).join('')}`;
  if (may('change')) wirePreview(r.rules);
}

/** A rule file to start a preview from: the chosen rule's fields as the rules API gives them. */
function template(rule) {
  const when = rule ? rule.when : "avg(gpuUtil, 2m) > 90";
  return `group: preview\nlayer: ${rule ? rule.layer : 'device'}\nscope: ${rule ? rule.scope : 'card'}\nrules:\n`
    + `  - name: ${rule ? rule.name + '-edited' : 'my-rule'}\n    severity: ${rule ? rule.severity : 'ticket'}\n`
    + `    when: >-\n      ${when.replace(/\n/g, '\n      ')}\n`
    + (rule && rule.forSeconds ? `    for: ${rule.forSeconds}s\n` : rule ? '' : '    for: 1m\n')
    + (rule && rule.keepFiringForSeconds ? `    keep_firing_for: ${rule.keepFiringForSeconds}s\n` : '');
}

function previewPanel(rules) {
  return `<section class="panel" id="preview"><h3>Rule preview</h3>
    <p class="muted">Paste or edit a rule file and see what it would have fired over the gateway's last hour of data. Nothing is saved or sent.</p>
    <label>start from <select id="preview-from"><option value="">a blank rule</option>
      ${rules.map(x => `<option>${esc(x.name)}</option>`).join('')}</select></label>
    <textarea id="preview-text" class="mono" rows="12" spellcheck="false"></textarea>
    <div><button type="button" class="primary" id="preview-run">Preview over the last hour</button></div>
    <div id="preview-out"></div></section>`;
}

function wirePreview(rules) {
  const text = main.querySelector('#preview-text');
  text.value = template(null);
  main.querySelector('#preview-from').addEventListener('change', e => {
    text.value = template(rules.find(x => x.name === e.target.value) || null);
  });
  main.querySelector('#preview-run').addEventListener('click', async () => {
    const out = main.querySelector('#preview-out');
    out.innerHTML = '<p class="muted">replaying…</p>';
    const res = await fetch('/api/v1/rules/preview', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': state.me.csrf || '' },
      body: JSON.stringify({ rules: text.value }) });
    const p = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) {
      out.innerHTML = `<p class="error">${esc(p.error)}</p>${p.diagnostics ? `<pre class="md">${esc(p.diagnostics.map(d => d.text).join('\n'))}</pre>` : ''}`;
      return;
    }
    out.innerHTML = `<p>${p.frames} frames from ${when(p.from)} to ${when(p.to)}: <strong>${p.alerts.length}</strong> alert${p.alerts.length === 1 ? '' : 's'} would have fired.</p>
      ${p.alerts.length ? `<table><tr><th>rule</th><th>severity</th><th>where</th><th>from</th><th>to</th><th>summary</th></tr>
      ${p.alerts.map(a => `<tr><td>${esc(a.rule)}</td><td><span class="sev ${esc(a.severity)}">${esc(a.severity)}</span></td><td>${where(a.labels)}</td>
        <td>${when(a.from)}</td><td>${a.stillFiring ? 'still firing' : when(a.to)}</td><td>${esc(a.summary)}</td></tr>`).join('')}</table>` : ''}
      ${p.runtimeErrors.length ? `<pre class="md">${esc(p.runtimeErrors.map(d => d.text).join('\n'))}</pre>` : ''}`;
  });
}

async function renderSilences() {
  let s;
  try { s = await api('GET', '/api/v1/silences'); } catch (err) { main.innerHTML = `<p class="error">${esc(err.message)}</p>`; return; }
  const order = { active: 0, pending: 1, expired: 2 };
  const list = s.silences.sort((a, b) => order[a.state] - order[b.state] || a.endsAt.localeCompare(b.endsAt));
  main.innerHTML = `<div class="toolbar"><h2>Silences</h2>${may('change') ? '<button type="button" id="new-silence">New silence</button>' : ''}</div>
    <table><tr><th>state</th><th>matchers</th><th>by</th><th>comment</th><th>from</th><th>until</th><th></th></tr>
    ${list.map(x => `<tr data-id="${esc(x.id)}" data-state="${esc(x.state)}"><td>${esc(x.state)}</td><td class="mono">${x.matchers.map(esc).join(', ')}</td>
      <td>${esc(x.createdBy)}</td><td>${esc(x.comment)}</td><td>${when(x.startsAt)}</td><td>${when(x.endsAt)}</td>
      <td>${may('change') && x.state !== 'expired' ? '<button type="button" data-act="expire">Expire</button>' : ''}</td></tr>`).join('')}</table>
    ${list.length ? '' : '<p class="muted">No silences.</p>'}`;
  main.querySelectorAll('button[data-act=expire]').forEach(b => b.addEventListener('click', async () => {
    const id = b.closest('tr').dataset.id;
    try { await api('DELETE', `/api/v1/silences/${id}`); toast('Silence expired'); renderSilences(); } catch (err) { toast(err.message, true); }
  }));
  const add = main.querySelector('#new-silence');
  if (add) add.addEventListener('click', () => silenceDialog({}));
}

start();
