// Names the main-thread work of a page load, the way Lighthouse's mobile
// run sees it: a trace of the load in Chromium (a phone's viewport, no
// throttling), each task's thread CPU time (tdur: what a busy machine
// changes least) times 4 (Lighthouse's simulated CPU slowdown), and every
// task that then passes 50 ms, with its self time by kind of work.
//   TRACE_URL=... [TRACE_COOKIE=...] [TRACE_RUNS=5] node e2e/lighthouse/trace.mjs
// Prints each run's estimated blocking time and, over the runs, the
// median and the work by kind. TRACE_JS=1 adds a sampling profile (JS self
// time by function), TRACE_WALL=1 takes wall time as Lighthouse does (it
// grows with the machine's load), TRACE_CSS="from=>to" serves the
// stylesheet with a change (an experiment without a build).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const url = process.env.TRACE_URL;
const runs = Number(process.env.TRACE_RUNS || 5);
const quiet = !!process.env.TRACE_QUIET;
const slow = 4;
// TRACE_WALL=1 takes the tasks' wall time (what Lighthouse takes) instead of their thread CPU time.
const wall = !!process.env.TRACE_WALL;
const browser = await puppeteer.launch({
  executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--lang=es-CO'],
});
const blocking = [];
const cpu = [];
const kinds = new Map();
const fns = new Map();
try {
  for (let run = 0; run < runs; run++) {
    const ctx = await browser.createBrowserContext();
    const page = await ctx.newPage();
    await page.setViewport({ width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true });
    if (process.env.TRACE_COOKIE) await page.setExtraHTTPHeaders({ Cookie: process.env.TRACE_COOKIE });
    if (process.env.TRACE_CSS) { // "from=>to": an experiment on the stylesheet, served in place of the real one
      const [from, to] = process.env.TRACE_CSS.split('=>');
      await page.setRequestInterception(true);
      page.on('request', async (req) => {
        if (!req.url().endsWith('.css')) { req.continue(); return; }
        const css = await (await fetch(req.url())).text();
        req.respond({ status: 200, contentType: 'text/css', body: css.split(from).join(to) });
      });
    }
    const file = path.join(os.tmpdir(), `trace-${process.pid}-${run}.json`);
    await page.tracing.start({ path: file, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'toplevel', 'blink', 'loading', 'v8'] });
    let cdp = null;
    if (process.env.TRACE_JS) {
      cdp = await page.createCDPSession();
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
      await cdp.send('Profiler.start');
    }
    // The events stream stays open: the load is over when the network
    // has been quiet but for it.
    await page.goto(url, { waitUntil: 'networkidle2', timeout: 60000 });
    await new Promise((r) => setTimeout(r, 1500));
    await page.tracing.stop();
    if (cdp) jsProfile((await cdp.send('Profiler.stop')).profile);
    await ctx.close();
    const evs = JSON.parse(fs.readFileSync(file)).traceEvents || [];
    fs.unlinkSync(file);
    report(evs);
  }
} finally { await browser.close(); }
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(`median over ${runs}: estimated blocking ${med(blocking).toFixed(0)} ms, main-thread CPU ${med(cpu).toFixed(0)} ms (x${slow}); runs: ${blocking.map((b) => b.toFixed(0)).join(' ')}`);
console.log('work by kind (self CPU ms per load, x1): ' + [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k}=${(v / runs / 1000).toFixed(1)}`).join(' '));

function report(evs) {
  const host = new URL(url).host;
  const pids = new Set(evs.filter((e) => e.name === 'ParseHTML' && (e.args?.beginData?.url || '').includes(host)).map((e) => e.pid));
  const names = evs.filter((e) => e.name === 'thread_name' && e.args.name === 'CrRendererMain' && pids.has(e.pid));
  let best = null; let bestT = 0;
  for (const n of names) {
    const t = evs.filter((e) => e.pid === n.pid && e.tid === n.tid && e.name === 'RunTask').reduce((a, e) => a + (e.tdur || e.dur || 0), 0);
    if (t > bestT) { best = n; bestT = t; }
  }
  if (!best) { console.log('run: the page\'s main thread is not in the trace (skipped)'); return; }
  const th = evs.filter((e) => e.pid === best.pid && e.tid === best.tid && e.ph === 'X' && e.dur).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const nav = th[0];
  const tasks = th.filter((e) => e.name === 'RunTask');
  let total = 0; let all = 0;
  for (const t of tasks) {
    const c = wall ? t.dur : (t.tdur ?? t.dur);
    all += c * slow / 1000;
    const kids = th.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur);
    const self = new Map();
    const stack = [];
    for (const k of kids) {
      while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= k.ts) stack.pop();
      const v = wall ? k.dur : (k.tdur ?? k.dur);
      self.set(lab(k), (self.get(lab(k)) || 0) + v);
      if (stack.length) { const p = lab(stack[stack.length - 1]); self.set(p, (self.get(p) || 0) - v); }
      stack.push(k);
    }
    for (const [k, v] of self) kinds.set(k, (kinds.get(k) || 0) + v);
    if (c * slow < 50000) continue;
    total += c * slow / 1000 - 50;
    if (quiet) continue;
    const top = [...self].filter(([, v]) => v > 500).sort((a, b) => b[1] - a[1]).slice(0, 7).map(([k, v]) => `${k}=${(v / 1000).toFixed(1)}`);
    console.log(`  task @${((t.ts - nav.ts) / 1000).toFixed(0)}ms cpu ${(c / 1000).toFixed(1)}ms (x${slow} ${(c * slow / 1000).toFixed(0)}): ${top.join(' ')}`);
  }
  blocking.push(total); cpu.push(all);
  if (!quiet) console.log(`run: estimated blocking ${total.toFixed(0)} ms, main-thread CPU ${all.toFixed(0)} ms (x${slow})`);
}

// jsProfile adds the JavaScript self time by function (TRACE_JS=1).
function jsProfile(p) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const dt = p.timeDeltas || [];
  (p.samples || []).forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const k = `${f.functionName || '(anon)'}@${f.url.replace(/^https?:\/\/[^/]+/, '').replace(/\/v\/[0-9a-f]+\//, '/')}:${f.lineNumber + 1}`;
    fns.set(k, (fns.get(k) || 0) + (dt[i + 1] || 0));
  });
}
process.on('exit', () => {
  if (fns.size) console.log('JS self time by function (ms per load, x1): ' + [...fns].filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(program)'))
    .sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${k}=${(v / runs / 1000).toFixed(1)}`).join(' '));
});

function lab(e) {
  const d = (e.args && (e.args.data || e.args.beginData)) || {};
  const u = (d.url || '').replace(/^https?:\/\/[^/]+/, '').replace(/\/v\/[0-9a-f]+\//, '/').replace(/\?.*/, '');
  if (e.name === 'FunctionCall') return `Fn(${u}:${d.functionName || ''})`;
  if (e.name === 'EvaluateScript' || e.name === 'v8.compileModule' || e.name === 'v8.evaluateModule') return `${e.name}(${u})`;
  if (e.name === 'EventDispatch') return `Event(${d.type})`;
  return e.name;
}
