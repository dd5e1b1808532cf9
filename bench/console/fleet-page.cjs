// The console's fleet page against a loaded gateway, in Debian's Chromium: time to first render (navigation to
// the heatmap drawn) and per update (the refresh each `fleet` server-sent event starts: fetch and draw).
// BASE_URL, TOKEN (any role), UPDATES (default 10); prints one JSON object. Run by bench/console/run.sh.
const { chromium } = require('playwright-core');

const updates = Number(process.env.UPDATES || 10);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const round = x => Math.round(x * 10) / 10;

(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  page.setDefaultTimeout(120_000);
  try {
    await page.goto(process.env.BASE_URL + '/console/');
    await page.fill('#token', process.env.TOKEN);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#top', { state: 'visible' });
    const t0 = Date.now();
    await page.evaluate(() => { window.navStart = performance.now(); location.hash = '#/fleet'; });
    await page.waitForFunction(() => window.gpuwatchTimings.length >= 1);
    const firstWall = Date.now() - t0;
    const first = await page.evaluate(() => ({ ...window.gpuwatchTimings[0], sinceNav: performance.now() - window.navStart }));
    await page.waitForFunction(n => window.gpuwatchTimings.length >= n + 1, updates, { timeout: (updates + 4) * 6000 });
    const all = await page.evaluate(() => window.gpuwatchTimings);
    const rest = all.slice(1, updates + 1);
    const bytes = await page.evaluate(async () => (await (await fetch('/api/v1/fleet')).text()).length);
    // a hover over the heatmap: the tooltip's hit test and drawing
    const hover = await page.evaluate(() => {
      const c = document.querySelector('#heatmap');
      const t = performance.now();
      for (let i = 0; i < 100; i++) c.dispatchEvent(new MouseEvent('mousemove', { clientX: 10 + i * 3, clientY: 60 + i, bubbles: true }));
      return (performance.now() - t) / 100;
    });
    console.log(JSON.stringify({
      cards: first.cards, fleetJsonBytes: bytes,
      firstRender: { ms: round(first.sinceNav), fetchMs: round(first.fetchMs), drawMs: round(first.drawMs), wallMs: firstWall },
      perUpdate: { n: rest.length, medianMs: round(pct(rest.map(x => x.totalMs), 0.5)), p95Ms: round(pct(rest.map(x => x.totalMs), 0.95)),
        medianFetchMs: round(pct(rest.map(x => x.fetchMs), 0.5)), medianDrawMs: round(pct(rest.map(x => x.drawMs), 0.5)),
        maxDrawMs: round(Math.max(...rest.map(x => x.drawMs))) },
      hoverMs: round(hover) }, null, 2));
  } finally {
    await browser.close();
  }
})().catch(e => { console.error(e.stack || String(e)); process.exit(1); });
