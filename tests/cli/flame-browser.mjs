// flame-browser.mjs CHROMIUM SVG FOLDED [BIG_SVG|- [CHART_SVG DIFF_SVG DIFF_FOLDED [STACKED_SVG]]]
//
// Opens a pprof-flame SVG in headless Chromium, driven over the DevTools
// protocol through --remote-debugging-pipe (no npm package needed), and
// checks it against the folded stacks it was drawn from (drawn with
// --minwidth 0, so every frame is there): a click zooms (the frame takes
// the whole width, its callees their exact share, the rest is hidden),
// the details bar shows the tooltip, a regex search (from the Ctrl-F
// prompt) gives the matched percentage of the exact data, Ctrl-I makes it
// case-insensitive, the zoom and search are kept in the URL and restored,
// Escape resets.  With BIG_SVG, prints how long a large graph takes to
// load and to zoom.  With CHART_SVG (a --flamechart of a time-ordered
// profile): its time axis (each tick where its time is), and every frame's
// tooltip start and duration against its exact start, width and position;
// the axis hidden while zoomed.  With DIFF_SVG (drawn with --diff and
// --minwidth 0) and DIFF_FOLDED (pprof-diff's "stack BEFORE AFTER" lines of
// the same profiles): the tooltip of the frame that shrank the most gives
// its before, after and delta from the folded sums, and it is drawn blue.
// With STACKED_SVG (the flame charts of a trace's threads, stacked): each
// chart zooms, shows its details and keeps its URL keys on its own.
// Prints "ok"/"not ok" lines; exits 1 on a failure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [chromium, svgPath, foldedPath, bigArg, chartPath, diffPath, diffFoldedPath, stackedPath] = process.argv.slice(2);
const bigPath = bigArg === '-' ? undefined : bigArg;
const profileDir = mkdtempSync(join(tmpdir(), 'flame-browser-'));
const proc = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
	'--disable-background-networking', '--disable-extensions', '--user-data-dir=' + profileDir,
	'--remote-debugging-pipe', 'about:blank'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });

// ---- a minimal DevTools protocol client over the pipe (NUL-separated JSON) ----
let nextId = 1;
const pending = new Map();
const listeners = [];
let inbuf = '';
proc.stdio[4].setEncoding('utf8');
proc.stdio[4].on('data', (chunk) => {
	inbuf += chunk;
	let i;
	while ((i = inbuf.indexOf('\0')) >= 0) {
		const msg = JSON.parse(inbuf.slice(0, i));
		inbuf = inbuf.slice(i + 1);
		if (msg.id && pending.has(msg.id)) {
			const { ok, ko } = pending.get(msg.id);
			pending.delete(msg.id);
			msg.error ? ko(new Error(JSON.stringify(msg.error))) : ok(msg.result);
		} else if (msg.method) {
			for (const l of listeners.slice())
				if (l.method === msg.method) l.fn(msg.params);
		}
	}
});
function send(method, params = {}, sessionId) {
	const id = nextId++;
	const m = { id, method, params };
	if (sessionId) m.sessionId = sessionId;
	proc.stdio[3].write(JSON.stringify(m) + '\0');
	return new Promise((ok, ko) => pending.set(id, { ok, ko }));
}
function once(method, timeoutMs = 60000) {
	return new Promise((ok, ko) => {
		const l = { method, fn: (p) => { listeners.splice(listeners.indexOf(l), 1); clearTimeout(t); ok(p); } };
		const t = setTimeout(() => { listeners.splice(listeners.indexOf(l), 1); ko(new Error('timeout waiting for ' + method)); }, timeoutMs);
		listeners.push(l);
	});
}

let failures = 0, n = 0;
function check(cond, what, detail) {
	n++;
	console.log((cond ? 'ok ' : 'not ok ') + n + ' - ' + what + (cond || detail === undefined ? '' : '\n# ' + String(detail).replace(/\n/g, '\n# ')));
	if (!cond) failures++;
}

let session;
const S = (method, params) => send(method, params, session);
async function evaluate(expr) {
	const r = await S('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true });
	if (r.exceptionDetails)
		throw new Error(expr + ': ' + JSON.stringify(r.exceptionDetails));
	return r.result.value;
}
async function open(url) {
	const loaded = once('Page.loadEventFired');
	const t0 = Date.now();
	await S('Page.navigate', { url });
	await loaded;
	return Date.now() - t0;
}
async function mouse(type, x, y) {
	await S('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
}
async function click(x, y) {
	await mouse('mouseMoved', x, y);
	await mouse('mousePressed', x, y);
	await mouse('mouseReleased', x, y);
}
async function key(k, code, vk, modifiers = 0) {
	await S('Input.dispatchKeyEvent', { type: 'keyDown', key: k, code, windowsVirtualKeyCode: vk, modifiers });
	await S('Input.dispatchKeyEvent', { type: 'keyUp', key: k, code, windowsVirtualKeyCode: vk, modifiers });
}
// Answers the next prompt() with TEXT.
function answerPrompt(text) {
	once('Page.javascriptDialogOpening').then(() => S('Page.handleJavaScriptDialog', { accept: true, promptText: text }));
}

// ---- what the folded stacks say ----
const folded = readFileSync(foldedPath, 'utf8').split('\n').filter((l) => l).map((l) => {
	const i = l.lastIndexOf(' ');
	return { frames: l.slice(0, i).split(';'), value: Number(l.slice(i + 1)) };
});
const total = folded.reduce((a, l) => a + l.value, 0);
function under(path) {
	return folded.filter((l) => path.every((f, i) => l.frames[i] === f));
}
function sum(lines) {
	return lines.reduce((a, l) => a + l.value, 0);
}
function matchedPct(re, path) {
	// Share of the samples under PATH with a frame matching RE at or
	// below PATH's frame, or all of them when a frame of PATH matches.
	const lines = under(path);
	const base = sum(lines);
	if (path.some((f) => re.test(f)))
		return '100';
	const m = sum(lines.filter((l) => l.frames.slice(path.length ? path.length - 1 : 0).some((f) => re.test(f))));
	const pct = 100 * m / base;
	return pct === 100 ? '100' : pct.toFixed(1);
}

// The page's view of a frame: name, exact start and width, depth, path,
// and where it is on the screen.
const frameInfo = `(function (pick) {
	var F = window.flamegraph.frames;
	var f = F[pick];
	var path = [];
	for (var i = 0; i < F.length; i++) {
		var a = F[i];
		if (a.depth > 0 && a.depth <= f.depth && a.s <= f.s && a.s + a.w >= f.s + f.w)
			path[a.depth - 1] = a.name;
	}
	var r = f.rect.getBoundingClientRect();
	return { index: pick, name: f.name, s: f.s, w: f.w, depth: f.depth, path: path,
		x: f.rect.getAttribute('x'), width: f.rect.getAttribute('width'), y: f.rect.getAttribute('y'),
		cx: r.left + Math.min(r.width / 2, 20), cy: r.top + r.height / 2, title: f.title };
})`;
const widest = (name) => `(function () {
	var F = window.flamegraph.frames, best = -1;
	for (var i = 0; i < F.length; i++)
		if (F[i].name === ${JSON.stringify(name)} && (best < 0 || F[i].w > F[best].w)) best = i;
	return best;
})()`;


// A time as the tooltips print it ("1.25 ms", "-4.00 ms", "+3 s", "0 ns")
// in nanoseconds, with half its last digit: [value, tolerance].
const unitNs = { 'ns': 1, '\u00b5s': 1e3, 'ms': 1e6, 's': 1e9 };
function parseTime(text) {
	const m = /^([-+]?)([0-9][0-9,]*(?:\.([0-9]+))?) (ns|\u00b5s|ms|s)$/.exec(text.trim());
	if (!m)
		return null;
	const f = unitNs[m[4]];
	const v = parseFloat(m[2].replace(/,/g, '')) * f * (m[1] === '-' ? -1 : 1);
	return [v, 0.5 * Math.pow(10, -(m[3] ? m[3].length : 0)) * f * (1 + 1e-9)];
}
function near(parsed, exact) {
	return parsed !== null && Math.abs(parsed[0] - exact) <= parsed[1];
}

// ---- a flame chart in time: the axis and the tooltips' start and duration ----
async function checkChart(path) {
	await open(pathToFileURL(resolve(path)).href);
	const info = await evaluate(`(function () {
		var fr = document.getElementById("frames");
		var ax = document.getElementById("axis");
		var ticks = [];
		if (ax) {
			var t = ax.getElementsByTagName("text");
			for (var i = 0; i < t.length; i++) ticks.push([parseFloat(t[i].getAttribute("x")), t[i].textContent]);
		}
		return { total: parseFloat(fr.getAttribute("total")), fullw: parseFloat(fr.getAttribute("imagewidth")) - 20,
			t0: parseFloat(fr.getAttribute("start") || "0"),
			ticks: ticks, axisShown: !!ax && !ax.classList.contains("hide") && getComputedStyle(ax).display !== "none" };
	})()`);
	check(info.axisShown && info.ticks.length >= 3, 'flame chart: a time axis with ticks', info.ticks.length);
	// The chart's left edge is its first sample, at T0 from the capture's
	// start: the ticks are the times from the capture's start within it.
	let tickOk = info.ticks.length > 0 && (info.t0 > 0 || info.ticks[0][1] === '0'),
		why = JSON.stringify(info.ticks[0]);
	for (const [x, label] of info.ticks) {
		const t = label === '0' ? [0] : parseTime(label);
		const expectX = 10 + ((t ? t[0] : NaN) - info.t0) / info.total * info.fullw;
		if (!(Math.abs(expectX - x) <= 0.06)) {
			tickOk = false;
			why = `${label} at ${x}, expected ${expectX.toFixed(2)}`;
		}
	}
	check(tickOk, 'flame chart: each tick where its time is, from the capture start', why);
	console.log('# axis: ' + info.ticks.map((t) => t[1]).join(' | '));
	// Every frame but the root: "NAME (DURATION, P%; start START)".
	const frames = await evaluate(`window.flamegraph.frames.map(function (f) {
		return [f.title, f.s, f.w, f.depth, parseFloat(f.rect.getAttribute("x")), parseFloat(f.rect.getAttribute("width"))];
	})`);
	let bad = 0, first = '', nstart = 0;
	for (const [title, s, w, depth, x, width] of frames) {
		if (depth === 0)
			continue;
		const m = /\(([^()]+), [0-9.]+%; start ([^()]+)\)$/.exec(title);
		const dur = m && parseTime(m[1]), st = m && parseTime(m[2]);
		const ok = m && near(dur, w) && near(st, s + info.t0) &&
			Math.abs(10 + s / info.total * info.fullw - x) <= 0.051 &&
			Math.abs(w / info.total * info.fullw - width) <= 0.1;
		if (!ok && !bad++)
			first = `${title}: s=${s} w=${w} x=${x} width=${width}`;
		nstart++;
	}
	check(nstart > 0 && bad === 0, `flame chart: ${nstart} tooltips give the frame's start and duration, where it is drawn`, `${bad} wrong, first ${first}`);
	// Hover: the details bar shows them; a zoom hides the whole chart's axis.
	const k = await evaluate(`(function () {
		var F = window.flamegraph.frames, best = -1;
		for (var i = 0; i < F.length; i++)
			if (F[i].depth === 2 && F[i].s > 0 && (best < 0 || F[i].w > F[best].w)) best = i;
		return best;
	})()`);
	const fk = await evaluate(frameInfo + '(' + k + ')');
	await mouse('mouseMoved', fk.cx, fk.cy);
	const details = await evaluate('document.getElementById("details").textContent');
	check(details === 'Function: ' + fk.title && / start [^)]+\)$/.test(details), 'flame chart: details bar with the start on hover', details);
	await click(fk.cx, fk.cy);
	const zoomed = await evaluate(`[document.getElementById("axis").classList.contains("hide"), window.flamegraph.frames[${k}].rect.getAttribute("width")]`);
	check(zoomed[0] && zoomed[1] === info.fullw.toFixed(1), 'flame chart: zoom takes the width and hides the axis', zoomed.join(' '));
	await key('Escape', 'Escape', 27);
	const back = await evaluate('!document.getElementById("axis").classList.contains("hide")');
	check(back, 'flame chart: the axis comes back on unzoom');
}

// ---- a differential graph: the tooltip of a frame that shrank ----
async function checkDiff(path, foldedDiff) {
	const lines = readFileSync(foldedDiff, 'utf8').split('\n').filter((l) => l).map((l) => {
		const f = l.split(' ');
		return { frames: f.slice(0, -2).join(' ').split(';'), before: Number(f[f.length - 2]), after: Number(f[f.length - 1]) };
	});
	await open(pathToFileURL(resolve(path)).href);
	// The frame whose total fell the most, from the folded sums.
	const all = await evaluate(`(function () {
		var info = ${frameInfo}, out = [];
		for (var i = 0; i < window.flamegraph.frames.length; i++) out.push(info(i));
		return out;
	})()`);
	let best = null;
	for (const fi of all) {
		if (fi.depth === 0)
			continue;
		const sel = lines.filter((l) => fi.path.every((f, j) => l.frames[j] === f));
		const b = sel.reduce((x, l) => x + l.before, 0), a = sel.reduce((x, l) => x + l.after, 0);
		if (a > 0 && (!best || b - a > best.b - best.a))
			best = { fi, b, a };
	}
	check(best && best.b > best.a, 'differential: a frame that shrank', best && best.fi.name);
	if (!best)
		return;
	const { fi, b, a } = best;
	const m = /\(after ([^,]+), [0-9.]+%; before ([^,]+), delta ([^,]+), ([-+][0-9.]+)%/.exec(fi.title);
	const ok = m && near(parseTime(m[1]), a) && near(parseTime(m[2]), b) && near(parseTime(m[3]), a - b) &&
		m[3].startsWith('-') && Math.abs(parseFloat(m[4]) - 100 * (a - b) / b) <= 0.005 + 1e-9;
	check(ok, `differential: ${fi.name}'s tooltip gives before, after and delta from the folded sums`,
		`${fi.title} vs before ${b} after ${a}`);
	console.log(`# shrinking frame: ${fi.title}`);
	const fill = await evaluate(`getComputedStyle(window.flamegraph.frames[${fi.index}].rect).fill`);
	const rgb = (fill.match(/[0-9]+/g) || []).map(Number);
	check(rgb.length === 3 && rgb[2] > rgb[0] && rgb[2] > rgb[1], 'differential: the shrinking frame is blue', fill);
	await mouse('mouseMoved', fi.cx, fi.cy);
	const details = await evaluate('document.getElementById("details").textContent');
	check(details === 'Function: ' + fi.title, 'differential: details bar on hover', details);
}

// ---- charts stacked in one SVG: each on its own ----
async function checkStacked(path) {
	await open(pathToFileURL(resolve(path)).href);
	const n = await evaluate('(window.flamegraphs || []).length');
	const charts = (readFileSync(path, 'utf8').match(/<g id="frames" /g) || []).length;
	check(n === charts && n > 1, 'stacked charts: one script state per chart', `${n} vs ${charts}`);
	const pick = (c) => `(function () {
		var F = window.flamegraphs[${c}].frames, best = -1;
		for (var i = 0; i < F.length; i++)
			if (F[i].depth === 2 && (best < 0 || F[i].w > F[best].w)) best = i;
		var r = F[best].rect.getBoundingClientRect();
		return [best, r.left + Math.min(r.width / 2, 20), r.top + r.height / 2, F[best].title];
	})()`;
	const [k, x, y, title] = await evaluate(pick(1));
	await mouse('mouseMoved', x, y);
	const det = await evaluate(`[window.flamegraphs[0].element.querySelector('[id="details"]').textContent,
		window.flamegraphs[1].element.querySelector('[id="details"]').textContent]`);
	check(det[1] === 'Function: ' + title && det[0].trim() === '', 'stacked charts: the second one\'s details bar on hover', det.join(' | '));
	await click(x, y);
	const st = await evaluate(`(function () {
		var a = window.flamegraphs[0], b = window.flamegraphs[1];
		var fw = String((parseFloat(b.element.querySelector('[id="frames"]').getAttribute("imagewidth")) - 20).toFixed(1));
		return [b.frames[${k}].rect.getAttribute("width") === fw,
			a.element.querySelectorAll('[id="frames"] > .hide').length,
			b.element.querySelector('[id="unzoom"]').classList.contains("hide"),
			a.element.querySelector('[id="unzoom"]').classList.contains("hide"),
			window.location.search];
	})()`);
	check(st[0] && st[1] === 0 && !st[2] && st[3], 'stacked charts: a click zooms that chart alone', JSON.stringify(st));
	check(/[?&]x2=/.test(st[4]) && !/[?&]x=/.test(st[4]), 'stacked charts: its zoom kept under its own URL keys', st[4]);
	await key('Escape', 'Escape', 27);
	const un = await evaluate(`window.flamegraphs[1].element.querySelector('[id="unzoom"]').classList.contains("hide")`);
	check(un, 'stacked charts: Escape unzooms the chart under the pointer');
}

async function main() {
	await send('Browser.getVersion');
	const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
	({ sessionId: session } = await send('Target.attachToTarget', { targetId, flatten: true }));
	await S('Page.enable');
	await S('Runtime.enable');
	await S('Emulation.setDeviceMetricsOverride', { width: 1300, height: 3000, deviceScaleFactor: 1, mobile: false });

	const url = pathToFileURL(resolve(svgPath)).href;
	await open(url);
	const nframes = await evaluate('window.flamegraph ? window.flamegraph.frames.length : -1');
	check(nframes > 0, 'the script ran and found the frames', nframes);
	const svgText = readFileSync(svgPath, 'utf8');
	const fullw = await evaluate('parseFloat(document.getElementById("frames").getAttribute("imagewidth")) - 20');
	const fullws = fullw.toFixed(1);
	check(nframes === (svgText.match(/<title>/g) || []).length, 'one entry per frame', nframes);

	// Tooltips: every title is "NAME (T, P%)" with the folded sums, T in
	// human units with the digits the total's 1/20000 needs.
	const human = (v) => {
		const units = [['ns', 1], ['\u00b5s', 1e3], ['ms', 1e6], ['s', 1e9]];
		let i = 0;
		while (i + 1 < units.length && v >= units[i + 1][1]) i++;
		const f = units[i][1], res = total / 20000;
		let d = 0, step = f;
		while (d < 6 && step > res && step / 10 >= 1) { step /= 10; d++; }
		return `${(v / f).toFixed(d)} ${units[i][0]}`;
	};
	// The controls are readable at a glance: opaque, dark grey.
	const ctl = await evaluate('(function () { var s = getComputedStyle(document.getElementById("search")); ' +
		'var i = getComputedStyle(document.getElementById("ignorecase")); ' +
		'return [s.opacity, s.fill, i.opacity, i.fill].join(" "); })()');
	check(ctl === '1 rgb(70, 70, 70) 1 rgb(70, 70, 70)', 'Search and ic controls readable', ctl);
	const titles = await evaluate('window.flamegraph.frames.map(function (f) { return f.title; })');
	const rootTitle = titles.find((t) => t.startsWith('all ('));
	check(rootTitle === `all (${human(total)}, 100%)`, 'root tooltip', rootTitle);

	// ---- zoom on the widest "handle" frame ----
	const hi = await evaluate(widest('handle'));
	check(hi >= 0, 'a frame named handle');
	const h = await evaluate(frameInfo + '(' + hi + ')');
	const hval = sum(under(h.path));
	const expectTitle = `handle (${human(hval)}, ${(100 * hval / total).toFixed(2)}%)`;
	check(h.title === expectTitle, 'tooltip of handle from the folded sums', h.title + ' vs ' + expectTitle);

	await mouse('mouseMoved', h.cx, h.cy);
	const details = await evaluate('document.getElementById("details").textContent');
	check(details === 'Function: ' + expectTitle, 'details bar on hover', details);

	await click(h.cx, h.cy);
	const hz = await evaluate(frameInfo + '(' + hi + ')');
	check(hz.x === '10.0' && hz.width === fullws, 'clicked frame takes the whole width', hz.x + ' ' + hz.width);
	const unzoomShown = await evaluate('!document.getElementById("unzoom").classList.contains("hide")');
	check(unzoomShown, 'Reset Zoom shown');
	// Its callees: their share of handle's width, from the folded sums.
	const kids = new Map();
	for (const l of under(h.path))
		if (l.frames.length > h.path.length) {
			const k = l.frames[h.path.length];
			kids.set(k, (kids.get(k) || 0) + l.value);
		}
	const shown = await evaluate(`window.flamegraph.frames.filter(function (f) {
		return f.depth === ${h.depth + 1} && !f.g.classList.contains('hide');
	}).map(function (f) { return [f.name, parseFloat(f.rect.getAttribute('width'))]; })`);
	let kidsOk = shown.length === kids.size, why = `${shown.length} callees shown, ${kids.size} in the data`;
	for (const [name, width] of shown) {
		const expect = (kids.get(name) || 0) / hval * fullw;
		if (Math.abs(expect - width) > 0.051) {
			kidsOk = false;
			why = `${name}: ${width} px, expected ${expect.toFixed(2)}`;
		}
	}
	check(kidsOk, 'callees of the zoomed frame at their exact share', why);
	const outside = await evaluate(`window.flamegraph.frames.filter(function (f) {
		return !f.g.classList.contains('hide') && f.depth >= ${h.depth} &&
			(f.s < ${h.s} - 1e-6 || f.s + f.w > ${h.s + h.w} + 1e-6);
	}).length`);
	check(outside === 0, 'frames outside the zoomed one hidden', outside);
	const parents = await evaluate(`document.querySelectorAll('#frames > .parent').length`);
	check(parents === h.depth, 'its callers greyed as parents', parents + ' vs ' + h.depth);
	let loc = await evaluate('window.location.search');
	check(/[?&]x=/.test(loc) && /[?&]y=/.test(loc), 'zoom kept in the URL', loc);

	// ---- search from the Ctrl-F prompt, within the zoom ----
	answerPrompt('^visit');
	await key('f', 'KeyF', 70, 2);
	let matched = await evaluate('document.getElementById("matched").textContent');
	let expectM = 'Matched: ' + matchedPct(/^visit/, h.path) + '%';
	check(matched === expectM, 'matched % within the zoom', matched + ' vs ' + expectM);
	const marked = await evaluate(`document.querySelectorAll('#frames > .m').length`);
	check(marked > 0, 'matching frames highlighted', marked);

	// Escape resets the zoom; the search then counts everything.
	await key('Escape', 'Escape', 27);
	matched = await evaluate('document.getElementById("matched").textContent');
	expectM = 'Matched: ' + matchedPct(/^visit/, []) + '%';
	check(matched === expectM, 'matched % of the whole graph', matched + ' vs ' + expectM);
	console.log("# " + matched);
	const restored = await evaluate(frameInfo + '(' + hi + ')');
	check(restored.x === h.x && restored.width === h.width, 'unzoom restores the geometry', restored.x + ' ' + restored.width);

	// Case: "^VISIT" matches nothing until Ctrl-I.
	await key('Escape', 'Escape', 27); // clears the search
	answerPrompt('^VISIT');
	await key('f', 'KeyF', 70, 2);
	matched = await evaluate('document.getElementById("matched").textContent');
	check(matched === 'Matched: 0.0%', 'case-sensitive by default', matched);
	await key('i', 'KeyI', 73, 2);
	matched = await evaluate('document.getElementById("matched").textContent');
	check(matched === expectM, 'Ctrl-I: case-insensitive', matched + ' vs ' + expectM);
	loc = await evaluate('window.location.search');
	check(/[?&]s=%5EVISIT/.test(loc) && /[?&]i=1/.test(loc), 'search kept in the URL', loc);

	// ---- the state comes back from the URL ----
	await open(url + '?x=' + encodeURIComponent(h.x) + '&y=' + encodeURIComponent(h.y) + '&s=' + encodeURIComponent('^visit'));
	const back = await evaluate(frameInfo + '(' + hi + ')');
	matched = await evaluate('document.getElementById("matched").textContent');
	check(back.width === fullws, 'zoom restored from the URL', back.width);
	check(matched === 'Matched: ' + matchedPct(/^visit/, h.path) + '%', 'search restored from the URL', matched);

	// ---- clicking the Reset Zoom and Search buttons ----
	const ub = await evaluate('(function () { var r = document.getElementById("unzoom").getBoundingClientRect(); return [r.left + 5, r.top + r.height / 2]; })()');
	await click(ub[0], ub[1]);
	const after = await evaluate(frameInfo + '(' + hi + ')');
	check(after.width === h.width, 'Reset Zoom button', after.width);

	// ---- a large graph: load and zoom time ----
	if (bigPath) {
		const ms = await open(pathToFileURL(resolve(bigPath)).href);
		const big = await evaluate('window.flamegraph.frames.length');
		const zoomMs = await evaluate(`(function () {
			var F = window.flamegraph.frames, best = -1;
			for (var i = 0; i < F.length; i++) if (F[i].depth === 3 && (best < 0 || F[i].w > F[best].w)) best = i;
			var t = performance.now();
			window.flamegraph.zoom(best);
			window.flamegraph.search('a');
			window.flamegraph.unzoom();
			return performance.now() - t;
		})()`);
		console.log(`# large graph: ${big} frames, ${(readFileSync(bigPath).length / 1048576).toFixed(1)} MiB, loaded in ${ms} ms; zoom+search+unzoom ${zoomMs.toFixed(0)} ms`);
		check(big > 0 && ms < 60000, 'large graph loads', ms);
	}
	if (chartPath)
		await checkChart(chartPath);
	if (diffPath && diffFoldedPath)
		await checkDiff(diffPath, diffFoldedPath);
	if (stackedPath)
		await checkStacked(stackedPath);
}

const deadline = setTimeout(() => { console.log('not ok - timed out'); cleanup(1); }, 300000);
function cleanup(code) {
	clearTimeout(deadline);
	try { proc.kill('SIGKILL'); } catch (e) { /* already gone */ }
	try { rmSync(profileDir, { recursive: true, force: true }); } catch (e) { /* best effort */ }
	process.exit(code);
}
main().then(() => cleanup(failures ? 1 : 0), (e) => {
	console.log('not ok - ' + e.message.replace(/\n/g, ' '));
	cleanup(1);
});
