// gen-cpuprofile.mjs: the V8 .cpuprofile input of bench/run.
//
//	node bench/gen-cpuprofile.mjs OUTDIR [SCALE]
//
// Writes OUTDIR/cpu-SCALE.cpuprofile, about 16 MB * SCALE of compact JSON as
// node --cpu-prof and DevTools write it: "nodes" (id, callFrame with
// functionName, scriptId, url, 0-based lineNumber and columnNumber, hitCount,
// children, positionTicks on nodes that were hit), startTime, endTime,
// "samples" and "timeDeltas" (microseconds, about 1 ms apart with jitter and
// now and then a negative one, as V8's sampler produces).
//
// The node tree is what sampling a program builds: random walks from the
// root down one fixed call graph of JS functions in a few hundred scripts,
// each walk a sample, its nodes created on first visit, so hot paths take
// most samples and cold ones make the long tail of nodes.  (program), (idle)
// and (garbage collector) sit under (root) as in V8 profiles.  Fixed seeds:
// the same bytes on every run.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || join(here, 'out');
const scale = Number(process.argv[3] || 1);
const NSAMPLES = 600000 * scale, NWALKS = 4500 * scale, NFUNC = 5000, NSCRIPT = 300;
mkdirSync(out, { recursive: true });

let s32 = 0x3c6ef372;
function r() {
	s32 ^= s32 << 13; s32 >>>= 0;
	s32 ^= s32 >>> 17;
	s32 ^= s32 << 5; s32 >>>= 0;
	return s32 / 4294967296;
}
const pick = (a) => a[Math.floor(r() * a.length)];

const verbs = ['get', 'set', 'parse', 'render', 'handle', 'dispatch', 'resolve', 'load', 'emit',
	'visit', 'transform', 'encode', 'decode', 'fetch', 'update', 'build', 'apply', 'match'];
const nouns = ['Request', 'Response', 'Node', 'Element', 'Token', 'Route', 'Chunk', 'Buffer',
	'Entry', 'Props', 'State', 'Effect', 'Module', 'Scope', 'Header', 'Value', 'Stream', 'Event'];
const scripts = [];
for (let i = 0; i < NSCRIPT; i++) {
	const pkg = i < 40 ? `file:///srv/app/src/${pick(nouns).toLowerCase()}/${pick(verbs)}${i}.js`
		: `file:///srv/app/node_modules/${pick(verbs)}-${pick(nouns).toLowerCase()}${i}/lib/index.js`;
	scripts.push({ id: String(i + 10), url: i % 97 === 5 ? `node:internal/${pick(verbs)}${i}` : pkg });
}
const funcs = [];
for (let i = 0; i < NFUNC; i++) {
	const sc = pick(scripts), x = r();
	funcs.push({
		functionName: x < 0.12 ? '' : x < 0.5 ? `${pick(verbs)}${pick(nouns)}` : `${pick(nouns)}.${pick(verbs)}${pick(nouns)}`,
		scriptId: sc.id, url: sc.url,
		lineNumber: Math.floor(r() * 3000), columnNumber: Math.floor(r() * 120),
	});
}
const callees = funcs.map((_, i) => {
	const c = [];
	for (let k = 2 + Math.floor(r() * 6); k > 0; k--)
		c.push(Math.min(NFUNC - 1, i + 1 + Math.floor(r() * r() * Math.max(30, (NFUNC - i) * 0.3))));
	return c;
});

// nodes[k] = {id, f (function index or a special name), parent, children Map}
const nodes = [];
function mk(cf, parent) {
	const n = { id: nodes.length + 1, cf, children: new Map(), kids: [], hits: 0, ticks: null };
	nodes.push(n);
	if (parent)
		parent.kids.push(n.id);
	return n;
}
const special = (name) => ({ functionName: name, scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 });
const root = mk(special('(root)'), null);
const program = mk(special('(program)'), root);
const idle = mk(special('(idle)'), root);
const gc = mk(special('(garbage collector)'), root);
const entries = [];
for (let i = 0; i < 6; i++)
	entries.push(i);

// The tree: NWALKS walks from the root, each node made on first visit.
for (let i = 0; i < NWALKS; i++) {
	let f = pick(entries), n = root;
	for (let d = 0; ; d++) {
		let c = n.children.get(f);
		if (!c) {
			c = mk(funcs[f], n);
			n.children.set(f, c);
		}
		n = c;
		if (d >= 60 || (d > 2 && r() < 0.085))
			break;
		// skewed choice: the first callees are the usual ones
		const cs = callees[f];
		f = cs[Math.floor(r() * r() * cs.length)];
	}
}
// Samples: every node can be on top of the stack (self time); the odds are
// heavy-tailed, so a few hot nodes take most samples.
const cum = new Float64Array(nodes.length);
let acc = 0;
for (let k = 1; k < nodes.length; k++) {
	const x = r();
	acc += k < 4 ? [0, 8000, 12000, 5000][k] : Math.exp(x * x * x * 10);
	cum[k] = acc;
}
const samples = new Array(NSAMPLES);
for (let i = 0; i < NSAMPLES; i++) {
	const x = r() * acc;
	let lo = 1, hi = nodes.length - 1;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (cum[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	const n = nodes[lo];
	n.hits++;
	if (n.cf.lineNumber >= 0) {
		n.ticks ??= new Map();
		const line = n.cf.lineNumber + 1 + Math.floor(r() * r() * 20);
		n.ticks.set(line, (n.ticks.get(line) || 0) + 1);
	}
	samples[i] = n.id;
}

const deltas = new Array(NSAMPLES);
let t = 0;
for (let i = 0; i < NSAMPLES; i++) {
	let d = 1000 + Math.floor((r() - 0.5) * 400);
	if (r() < 0.002)
		d = -Math.floor(r() * 300);
	else if (r() < 0.01)
		d += Math.floor(r() * 20000);
	deltas[i] = d;
	t += d;
}
const startTime = 81234567890;
const profile = {
	nodes: nodes.map((n) => {
		const o = { id: n.id, callFrame: n.cf, hitCount: n.hits };
		if (n.kids.length)
			o.children = n.kids;
		if (n.ticks)
			o.positionTicks = [...n.ticks].map(([line, ticks]) => ({ line, ticks }));
		return o;
	}),
	startTime, endTime: startTime + t + 800, samples, timeDeltas: deltas,
};
writeFileSync(join(out, `cpu-${scale}.cpuprofile`), JSON.stringify(profile));
console.error(`cpu-${scale}.cpuprofile: ${nodes.length} nodes, ${NSAMPLES} samples`);
