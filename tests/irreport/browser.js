// tests/irreport/browser.js — opens an irreport HTML file in headless
// Chromium over the DevTools protocol (--remote-debugging-pipe: no
// WebSocket, no npm package) and prints what a test needs as JSON:
//
//   node tests/irreport/browser.js REPORT.html [--png OUT.png] [--width W]
//        [--height H] [--filter CRITERION-INDEX] [--at CSS-SELECTOR]
//
// (--at: the screenshot shows that element at the top of the window;
// --last: scroll to the last card and report whether its picture came: lastPicture)
//
// {console: [messages of level warning or error, exceptions, log errors],
//  requests: [every URL the page asked for besides itself],
//  ready, cards, kappa: [[group, stat, a, b, value, n, lo, hi]...],
//  matrices: [[group, a, b, [[counts]...]]...], filtered: {...},
//  timing: {domContentLoaded, load, firstPaint} (ms), png: {colors, nonwhite}}
//
// CHROMIUM=/path overrides /usr/bin/chromium.  Exit status 0, or 2 when the
// browser cannot be driven.
'use strict';
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const args = process.argv.slice(2);
let file = null, png = null, width = 1400, height = 900, filter = null, at = null, last = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--png') png = args[++i];
  else if (args[i] === '--width') width = +args[++i];
  else if (args[i] === '--height') height = +args[++i];
  else if (args[i] === '--filter') filter = args[++i];
  else if (args[i] === '--at') at = args[++i];
  else if (args[i] === '--last') last = true;
  else file = args[i];
}
if (!file) { console.error('usage: browser.js REPORT.html [--png OUT.png]'); process.exit(2); }
const url = 'file://' + path.resolve(file);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'irreport-chromium-'));
const child = spawn(chromium, ['--headless', '--disable-gpu', '--no-sandbox', '--no-first-run',
  '--remote-debugging-pipe', '--user-data-dir=' + profile, '--hide-scrollbars',
  '--force-device-scale-factor=1', 'about:blank'],
  { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
const toBrowser = child.stdio[3], fromBrowser = child.stdio[4];
let nextId = 1, buf = Buffer.alloc(0);
const pending = new Map(), listeners = [];
fromBrowser.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  let z;
  while ((z = buf.indexOf(0)) >= 0) {
    const msg = JSON.parse(buf.slice(0, z).toString('utf8'));
    buf = buf.slice(z + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) reject(new Error(JSON.stringify(msg.error))); else resolve(msg.result);
    } else {
      for (const l of listeners) l(msg);
    }
  }
});
function send(method, params, sessionId) {
  const id = nextId++;
  const m = { id, method, params: params || {} };
  if (sessionId) m.sessionId = sessionId;
  toBrowser.write(JSON.stringify(m) + '\0');
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
function cleanup() {
  try { child.kill('SIGKILL'); } catch (e) { /* gone */ }
  try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* ignore */ }
}
const timer = setTimeout(() => { console.error('browser.js: timed out'); cleanup(); process.exit(2); }, 120000);

// Distinct colours and the share of non-white pixels of a PNG (8-bit RGB/RGBA).
function pngStats(data) {
  let p = 8, w = 0, h = 0, ct = 0, depth = 0;
  const idat = [];
  while (p < data.length) {
    const len = data.readUInt32BE(p), type = data.toString('latin1', p + 4, p + 8);
    const body = data.slice(p + 8, p + 8 + len);
    if (type === 'IHDR') { w = body.readUInt32BE(0); h = body.readUInt32BE(4); depth = body[8]; ct = body[9]; }
    if (type === 'IDAT') idat.push(body);
    p += 12 + len;
  }
  if (depth !== 8 || (ct !== 2 && ct !== 6)) return { error: 'unsupported PNG', w, h };
  const bpp = ct === 6 ? 4 : 3, stride = w * bpp;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(stride * h);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], src = y * (stride + 1) + 1, dst = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? out[dst + x - bpp] : 0, b = y ? out[dst - stride + x] : 0;
      const c = x >= bpp && y ? out[dst - stride + x - bpp] : 0;
      let v = raw[src + x];
      if (f === 1) v += a; else if (f === 2) v += b; else if (f === 3) v += (a + b) >> 1;
      else if (f === 4) { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c);
        v += (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c); }
      out[dst + x] = v & 255;
    }
  }
  const colors = new Set();
  let nonwhite = 0;
  for (let i = 0; i < out.length; i += bpp) {
    const r = out[i], g = out[i + 1], b = out[i + 2];
    colors.add((r << 16) | (g << 8) | b);
    if (r < 240 || g < 240 || b < 240) nonwhite++;
  }
  return { width: w, height: h, colors: colors.size, nonwhite: nonwhite / (w * h) };
}

const EXTRACT = `(() => {
  const t = (e) => e ? e.textContent.trim() : null;
  const kappa = [];
  for (const tr of document.querySelectorAll('#kappa tr[data-g]')) {
    for (const s of ['agreement', 'cohen']) {
      const v = tr.querySelector('td.v[data-s=' + s + ']'), ci = tr.querySelector('td.ci[data-s=' + s + ']');
      kappa.push([tr.dataset.g, s, tr.dataset.a, tr.dataset.b, t(v), t(tr.querySelector('td.n')),
                  ci ? t(ci.querySelector('.lo')) : 'NA', ci ? t(ci.querySelector('.hi')) : 'NA']);
    }
  }
  const matrices = [];
  for (const cm of document.querySelectorAll('.cm')) {
    const rows = [];
    for (const td of cm.querySelectorAll('td[data-r]')) {
      const r = +td.dataset.r, c = +td.dataset.c;
      (rows[r] = rows[r] || [])[c] = +td.textContent;
    }
    const labels = [...cm.querySelectorAll('tr:first-child th')].slice(1, -1).map(t);
    matrices.push([cm.dataset.g, cm.dataset.a, cm.dataset.b, labels, rows]);
  }
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint');
  return JSON.stringify({
    ready: document.documentElement.getAttribute('data-ready') === '1',
    cards: document.querySelectorAll('#g .card').length,
    pictures: document.querySelectorAll('#g .card .pic svg').length,
    lazy: document.querySelectorAll('#g .card .pic > script').length,
    count: t(document.getElementById('cnt')),
    kappa, matrices,
    bytes: document.documentElement.outerHTML.length,
    timing: { domContentLoaded: nav ? nav.domContentLoadedEventEnd : null,
              load: nav ? nav.loadEventEnd : null, firstContentfulPaint: paint ? paint.startTime : null },
  });
})()`;

function FILTER(c) {
  return `(() => {
  const fc = document.getElementById('fc'), fd = document.getElementById('fd');
  fc.value = ${JSON.stringify(String(c))}; fd.checked = true;
  fc.dispatchEvent(new Event('change')); fd.dispatchEvent(new Event('change'));
  const cards = [...document.querySelectorAll('#g .card')];
  const shown = cards.filter((e) => getComputedStyle(e).display !== 'none');
  const rows = shown.length ? [...shown[0].querySelectorAll('tbody tr')]
    .filter((e) => getComputedStyle(e).display !== 'none').length : 0;
  const r = { shown: shown.length, count: document.getElementById('cnt').textContent,
              rowsInFirst: rows, ids: shown.map((e) => e.id) };
  fc.value = ''; fd.checked = false; fc.dispatchEvent(new Event('change'));
  return JSON.stringify(r);
})()`;
}

(async () => {
  const problems = [], requests = [];
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  let loaded;
  const loadedP = new Promise((r) => { loaded = r; });
  listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    const p = m.params || {};
    if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'warning' || p.type === 'assert'))
      problems.push('console.' + p.type + ': ' + (p.args || []).map((a) => a.value !== undefined ? a.value : a.description).join(' '));
    else if (m.method === 'Runtime.exceptionThrown')
      problems.push('exception: ' + (p.exceptionDetails.exception ? p.exceptionDetails.exception.description : p.exceptionDetails.text));
    else if (m.method === 'Log.entryAdded' && (p.entry.level === 'error' || p.entry.level === 'warning'))
      problems.push('log ' + p.entry.level + ': ' + p.entry.text + (p.entry.url ? ' (' + p.entry.url + ')' : ''));
    else if (m.method === 'Network.requestWillBeSent' && p.request.url !== url)
      requests.push(p.request.url.slice(0, 200));
    else if (m.method === 'Page.loadEventFired') loaded();
  });
  await send('Runtime.enable', {}, sessionId);
  await send('Log.enable', {}, sessionId);
  await send('Network.enable', {}, sessionId);
  await send('Page.enable', {}, sessionId);
  await send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false }, sessionId);
  await send('Page.navigate', { url }, sessionId);
  await loadedP;
  await new Promise((r) => setTimeout(r, 300));
  const ev = await send('Runtime.evaluate', { expression: EXTRACT, returnByValue: true }, sessionId);
  const res = JSON.parse(ev.result.value);
  if (last) {
    await send('Runtime.evaluate', { expression: "[...document.querySelectorAll('#g .card')].pop().scrollIntoView()" }, sessionId);
    await new Promise((r) => setTimeout(r, 600));
    const lv = await send('Runtime.evaluate', { expression: "!![...document.querySelectorAll('#g .card')].pop().querySelector('.pic > svg')", returnByValue: true }, sessionId);
    res.lastPicture = lv.result.value;
    await send('Runtime.evaluate', { expression: 'window.scrollTo(0, 0)' }, sessionId);
    await new Promise((r) => setTimeout(r, 300));
  }
  if (filter !== null) {
    const fv = await send('Runtime.evaluate', { expression: FILTER(filter), returnByValue: true }, sessionId);
    res.filtered = JSON.parse(fv.result.value);
  }
  if (png) {
    if (at) {
      await send('Runtime.evaluate', { expression: 'document.querySelector(' + JSON.stringify(at) + ').scrollIntoView()' }, sessionId);
      await new Promise((r) => setTimeout(r, 400));
    }
    const shot = await send('Page.captureScreenshot', { format: 'png' }, sessionId);
    const data = Buffer.from(shot.data, 'base64');
    fs.writeFileSync(png, data);
    res.png = pngStats(data);
  }
  res.console = problems;
  res.requests = requests;
  await send('Browser.close').catch(() => {});
  clearTimeout(timer);
  cleanup();
  process.stdout.write(JSON.stringify(res) + '\n');
  process.exit(0);
})().catch((e) => { console.error('browser.js: ' + e.message); cleanup(); process.exit(2); });
