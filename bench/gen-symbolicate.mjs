// gen-symbolicate.mjs: the name-recovery input of bench/run, from the
// source-map input (OUTDIR/bundle.js and its 20 MB map, gen-sourcemap.mjs).
//
//	node bench/gen-symbolicate.mjs OUTDIR [SAMPLES [HOT [WALKS [NAME]]]]
//
// Finds every function of bundle.js with acorn and where V8 puts it (the
// "(" of its parameters, a lone arrow parameter, "async"), then writes
//   OUTDIR/functions.txt       those positions, "LINE:COL" (1-based), one a
//                              line, in the bundle's order;
//   OUTDIR/bundle.cpuprofile   a .cpuprofile of bundle.js as node --cpu-prof
//                              writes one: 4000 stacks, random walks down a
//                              fixed call graph of those functions (fixed
//                              seed), taking SAMPLES (default 200000) samples
//                              1 ms apart.
// With HOT (0: all), the walks go down a call graph of HOT functions only,
// taken as runs of 30 neighbours (a module's functions sit together in a
// bundle) at random places: a program that uses a few thousand of the
// bundle's functions.  WALKS distinct stacks (default 4000); NAME the
// profile's file name in OUTDIR (default bundle.cpuprofile).  bench/run's
// second row: 600000 samples, HOT 3000, WALKS 7500 (about 40k nodes, as
// the .cpuprofile bench), bundle-hot.cpuprofile.
import { parse } from 'acorn';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
const nsamples = Number(process.argv[3] || 200000);
const nhot = Number(process.argv[4] || 0);
const NWALKS = Number(process.argv[5] || 4000);
const pname = process.argv[6] || 'bundle.cpuprofile';
const text = readFileSync(join(out, 'bundle.js'), 'utf8');

// line starts, for offsets -> 0-based line, UTF-16 column
const starts = [0];
for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
function pos(off) {
	let lo = 0, hi = starts.length;
	while (hi - lo > 1) {
		const mid = (lo + hi) >> 1;
		if (starts[mid] <= off) lo = mid; else hi = mid;
	}
	return [lo, off - starts[lo]];
}

const fns = [];
const ast = parse(text, { ecmaVersion: 'latest', sourceType: 'script', allowHashBang: true,
	allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true });
(function walk(n) {
	if (!n || typeof n.type !== 'string') return;
	if (/^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(n.type)) {
		let at;
		if (n.type === 'ArrowFunctionExpression' && n.async) at = n.start;
		else if (n.type === 'ArrowFunctionExpression' && n.params.length === 1 &&
			 n.params[0].type === 'Identifier' && text[n.start] !== '(') at = n.params[0].start;
		else at = text.indexOf('(', n.id ? n.id.end : n.start);
		if (at >= 0) fns.push({ at, name: n.id ? n.id.name : '' });
	}
	for (const k in n) {
		const v = n[k];
		if (k === 'loc' || !v || typeof v !== 'object') continue;
		if (Array.isArray(v)) for (const c of v) walk(c); else walk(v);
	}
})(ast);
fns.sort((a, b) => a.at - b.at);
writeFileSync(join(out, 'functions.txt'), fns.map((f) => { const [l, c] = pos(f.at); return `${l + 1}:${c + 1}`; }).join('\n') + '\n');

let s32 = 0x1b873593;
function r() {
	s32 ^= s32 << 13; s32 >>>= 0;
	s32 ^= s32 >>> 17;
	s32 ^= s32 << 5; s32 >>>= 0;
	return s32 / 4294967296;
}
const special = (id, name) => ({ id, callFrame: { functionName: name, scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [] });
const nodes = [special(1, '(root)'), special(2, '(program)'), special(3, '(idle)'), special(4, '(garbage collector)')];
nodes[0].children.push(2, 3, 4);
const child = new Map();
function node(parent, f) {
	const k = parent.id * 1048576 + f;
	let n = child.get(k);
	if (!n) {
		const [l, c] = pos(fns[f].at);
		n = { id: nodes.length + 1, callFrame: { functionName: fns[f].name, scriptId: '7', url: 'bundle.js', lineNumber: l, columnNumber: c }, hitCount: 0, children: [] };
		nodes.push(n);
		parent.children.push(n.id);
		child.set(k, n);
	}
	return n;
}
// the functions the program uses: all, or HOT of them in runs of 30
let pool = fns.map((_, i) => i);
if (nhot > 0 && nhot < fns.length) {
	const hot = new Set();
	while (hot.size < nhot) {
		const s = Math.floor((fns.length - 30) * r());
		for (let k = 0; k < 30 && hot.size < nhot; k++) hot.add(s + k);
	}
	pool = [...hot].sort((a, b) => a - b);
}
// a call graph: each function calls a few others; hot functions near the
// start of a skewed pick
const pick = () => pool[Math.floor(pool.length * r() ** 3)];
const calls = fns.map(() => [pick(), pick(), pick()]);
// NWALKS distinct stacks, the samples spread over them (skewed)
const walks = [];
for (let w = 0; w < NWALKS; w++) {
	let n = nodes[0], f = pool[Math.floor(pool.length * r())];
	const depth = 1 + Math.floor(r() * 12);
	for (let d = 0; d < depth; d++) {
		n = node(n, f);
		f = calls[f][Math.floor(r() * 3)];
	}
	walks.push(n);
}
const samples = [], deltas = [];
for (let i = 0; i < nsamples; i++) {
	const n = r() < 0.05 ? nodes[1 + Math.floor(r() * 3)] : walks[Math.floor(NWALKS * r() ** 2)];
	n.hitCount++;
	samples.push(n.id);
	deltas.push(i ? 1000 + Math.floor(r() * 100) - 50 : 0);
}
for (const n of nodes) if (!n.children.length) delete n.children;
writeFileSync(join(out, pname), JSON.stringify({ nodes, startTime: 0, endTime: nsamples * 1000, samples, timeDeltas: deltas }));
console.error(`gen-symbolicate: ${fns.length} functions${pool.length < fns.length ? ` (${pool.length} used)` : ''}, ${nodes.length} nodes`);
