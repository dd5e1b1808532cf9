// The console in a real Chromium (Debian's, never a download) against `gpuwatch demo`: ConsoleBrowserTest runs
// this with BASE_URL, OPERATOR_TOKEN, VIEWER_TOKEN and SHOTS (where the screenshots go). Exit 0 = every step held.
const { chromium } = require('playwright-core');
const path = require('path');

const base = process.env.BASE_URL;
const shots = process.env.SHOTS;
const STEP_MS = 120_000;

function check(ok, what) {
  if (!ok) throw new Error('failed: ' + what);
  console.log('ok: ' + what);
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(shots, name + '.png'), fullPage: true });
}

async function login(page, token) {
  await page.goto(base + '/');
  await page.waitForSelector('#login-form', { state: 'visible' });
  await page.fill('#token', token);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#top', { state: 'visible' });
}

/** What the console's own code would send, with the session's CSRF token: the server's answer status. */
async function tryAsPage(page, method, url, body) {
  return page.evaluate(async ([method, url, body]) => {
    const me = await (await fetch('/api/v1/session')).json();
    const res = await fetch(url, { method, headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf || '' },
      body: JSON.stringify(body) });
    return res.status;
  }, [method, url, body]);
}

(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', e => { console.log('page error: ' + e.message); process.exitCode = 1; });
  try {
    // 1. log in with the operator token the demo printed
    await page.goto(base + '/');
    check(new URL(page.url()).pathname === '/console/', '/ leads to the console');
    await page.waitForSelector('#login-form', { state: 'visible' });
    await shot(page, '01-login');
    await page.fill('#token', 'not-a-token');
    await page.click('#login-form button[type=submit]');
    await page.waitForFunction(() => (document.querySelector('#login-error')?.textContent ?? '').includes('not one'));
    check(true, 'a wrong token is refused');
    await login(page, process.env.OPERATOR_TOKEN);
    await page.waitForFunction(() => (document.querySelector('#who')?.textContent ?? '').includes('oncall · operator'));
    check(true, 'logged in as oncall, operator');
    const cookies = await context.cookies();
    const session = cookies.find(c => c.name === 'gpuwatch_session');
    check(session && session.httpOnly && session.sameSite === 'Strict', 'the session cookie is HttpOnly, SameSite=Strict');
    check(await page.evaluate(() => !document.cookie.includes('gpuwatch_session')), 'the page cannot read the cookie');
    await shot(page, '02-logged-in');

    // 2. the XID 79 alert appears live, without a reload
    await page.evaluate(() => { window.notReloaded = true; });
    const xid = '.alert[data-rule="xid-fallen-off-bus"]';
    await page.waitForSelector(xid);
    check(await page.evaluate(() => window.notReloaded === true), 'the XID alert came in live (no reload)');
    await shot(page, '03-xid-alert-live');

    // the keyboard: j and k move the selection
    await page.waitForFunction(() => document.querySelectorAll('.alert').length >= 2);
    const selected = () => page.evaluate(() => [...document.querySelectorAll('.alert')].findIndex(e => e.classList.contains('sel')));
    await page.keyboard.press('j');
    check(await selected() === 1, 'j selects the next alert');
    await page.keyboard.press('k');
    check(await selected() === 0, 'k the one before');

    // 3. acknowledge it
    await page.click(`${xid} button[data-act=ack]`);
    await page.waitForSelector(`${xid}[data-state~="acknowledged"]`);
    const fp = await page.getAttribute(xid, 'data-fp');
    const detail = await page.evaluate(async fp => (await fetch('/api/v1/alerts/' + fp)).json(), fp);
    check(detail.alert.acked && detail.alert.acked.by === 'oncall', 'the server holds the acknowledgement by oncall');
    await shot(page, '04-xid-acknowledged');

    // 4. the incident review of it, with its timeline, exported as Markdown
    await page.click(`${xid} .what`);
    await page.waitForSelector('#timeline li');
    check((await page.textContent('#timeline')).includes('ack'), 'the timeline shows the acknowledgement');
    await page.waitForSelector('#alert-charts canvas');
    await page.click('#export');
    const md = await page.textContent('#review-md');
    check(md.startsWith('# Incident review: xid-fallen-off-bus') && md.includes('| ack |'), 'the review exports as Markdown');
    await shot(page, '05-incident-review');
    await page.click('#review-close');

    // 5. silence another alert from its "silence like this" button, and see it muted
    await page.goto(base + '/console/#/alerts');
    const other = '.alert[data-state~="firing"]:not([data-rule="xid-fallen-off-bus"]):not([data-state~="silenced"])';
    await page.waitForSelector(`${other} button[data-act=silence]`);
    const rule = await page.getAttribute(other, 'data-rule');
    const otherFp = await page.getAttribute(other, 'data-fp');
    await page.click(`${other} button[data-act=silence]`);
    await page.waitForFunction(() => (document.querySelector('#silence-preview')?.textContent ?? '').includes('Would mute'));
    check(/Would mute [1-9]/.test(await page.textContent('#silence-preview')), 'the preview names what it would mute');
    await page.fill('#silence-form input[name=comment]', 'browser test: known, being handled');
    await shot(page, '06-silence-dialog');
    await page.click('#silence-form button[type=submit]');
    await page.waitForSelector(`.alert[data-fp="${otherFp}"][data-state~="silenced"]`);
    check(true, `the ${rule} alert is muted by the new silence`);
    await shot(page, '07-silenced');

    // 6. the fleet heatmap, then one card's charts
    await page.click('header nav a[data-view=fleet]');
    await page.waitForFunction(() => /\d+ cards on \d+ nodes/.test((document.querySelector('#fleet-stats')?.textContent ?? '')));
    check(/32 cards on 4 nodes/.test(await page.textContent('#fleet-stats')), 'the heatmap shows the 32 demo cards');
    await page.click('#layers button[data-layer=scheduling]');
    await page.waitForFunction(() => (document.querySelector('#metric')?.value ?? '') === 'allocated');
    await page.click('#layers button[data-layer=device]');
    await page.selectOption('#metric', 'tempC');
    await page.waitForFunction(() => (document.querySelector('#hi')?.textContent ?? '').includes('°C'));
    await shot(page, '08-fleet-heatmap');
    // the first card of the first node: cells of 26 px under a 14 px node label
    await page.click('#heatmap', { position: { x: 13, y: 27 } });
    await page.waitForSelector('#card-charts canvas.chart');
    check(/#\/card\/gpu-/.test(page.url()), 'a click on a card opens its charts');
    await shot(page, '09-card-charts');

    // the tasks, by business
    await page.click('header nav a[data-view=tasks]');
    await page.waitForSelector('section[data-business] tr td');
    check(await page.locator('section[data-business="chat-pretrain"]').count() === 1, 'the tasks page groups tasks by business');

    // 7. a rule preview: the XID rule, edited, over the demo's data so far
    await page.click('header nav a[data-view=rules]');
    await page.waitForSelector('#preview-from');
    await page.selectOption('#preview-from', 'xid-fallen-off-bus');
    check((await page.inputValue('#preview-text')).includes('name: xid-fallen-off-bus-edited'), 'the preview starts from the rule');
    await page.click('#preview-run');
    await page.waitForFunction(() => /would have fired/.test((document.querySelector('#preview-out')?.textContent ?? '')));
    check(/: [1-9]\d* alerts? would have fired/.test(await page.textContent('#preview-out')), 'the preview finds the XID alert');
    await shot(page, '10-rule-preview');

    // 8. the viewer: no buttons to change anything, and the server refuses what a button would send
    await page.click('#logout');
    await page.waitForSelector('#login-form', { state: 'visible' });
    await login(page, process.env.VIEWER_TOKEN);
    await page.goto(base + '/console/#/alerts');
    await page.waitForSelector(xid);
    check(await page.locator('button[data-act=ack], button[data-act=unack], button[data-act=silence]').count() === 0,
      'a viewer sees no acknowledge or silence button');
    await page.keyboard.press('a');
    const status = await tryAsPage(page, 'DELETE', '/api/v1/alerts/' + fp + '/ack', {});
    check(status === 403, 'the server refuses a viewer\'s un-acknowledgement (' + status + ')');
    const silence = await tryAsPage(page, 'POST', '/api/v1/silences', { matchers: ['node="gpu-0"'],
      endsAt: new Date(Date.now() + 3600_000).toISOString(), createdBy: 'viewer', comment: 'should not pass' });
    check(silence === 403, 'the server refuses a viewer\'s silence (' + silence + ')');
    const after = await page.evaluate(async fp => (await fetch('/api/v1/alerts/' + fp)).json(), fp);
    check(after.alert.acked && after.alert.acked.by === 'oncall', 'the acknowledgement still stands');
    await page.click('header nav a[data-view=silences]');
    await page.waitForSelector('table tr[data-id]');
    check(await page.locator('#new-silence, button[data-act=expire]').count() === 0, 'a viewer sees no silence buttons');
    await shot(page, '11-viewer-refused');

    // 9. without the CSRF token a change made with the session cookie is refused
    await page.click('#logout');
    await login(page, process.env.OPERATOR_TOKEN);
    const noCsrf = await page.evaluate(async fp => (await fetch('/api/v1/alerts/' + fp + '/ack', { method: 'DELETE' })).status, fp);
    check(noCsrf === 403, 'a change without the CSRF token is refused (' + noCsrf + ')');

    // 10. dark mode follows the system's setting
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(base + '/console/#/alerts');
    await page.waitForSelector(xid);
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor.match(/\d+/g).slice(0, 3).map(Number));
    check(bg.reduce((a, b) => a + b) < 150, 'dark mode: the page is dark (' + bg + ')');
    await shot(page, '12-dark-mode');
  } catch (e) {
    console.log(e.stack || String(e));
    await shot(page, '99-failure').catch(() => {});
    process.exitCode = 1;
  } finally {
    await browser.close();
  }
})();
