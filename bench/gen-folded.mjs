// gen-folded.mjs: the folded-stack inputs of bench/run.
//
//	node bench/gen-folded.mjs OUTDIR [SCALE]
//
// Writes OUTDIR/folded-SCALE-a.txt and OUTDIR/folded-SCALE-b.txt: two
// captures of one program, each 200,000 * SCALE distinct stacks (about
// 60 MB * SCALE), "root;...;leaf COUNT", bytewise sorted as the
// stackcollapse scripts write them.
//
// Stacks are made the way a profiler sees them: random walks down one fixed
// call graph of 6,000 functions from a few entry points, each function
// calling a handful of callees with skewed odds (a Zipf-like choice), so
// stacks share long root-side prefixes as in a real call tree, and a few
// hot paths carry most samples.  Counts are heavy-tailed.  The second capture
// keeps 90% of the first one's stacks with new counts, drops the other 10%,
// adds as many new ones, and makes a few functions three times hotter, so a
// diff has growth, shrinkage, appearances and disappearances.  A fixed seed
// makes the bytes the same on every run and machine.
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || join(here, 'out');
const scale = Number(process.argv[3] || 1);
const NSTACKS = 200000 * scale;
const NFUNC = 6000, NROOT = 8, NMOD = 400;
mkdirSync(out, { recursive: true });

function rng(seed) {
	let s = seed >>> 0 || 1;
	return () => {
		s ^= s << 13; s >>>= 0;
		s ^= s >>> 17;
		s ^= s << 5; s >>>= 0;
		return s / 4294967296;
	};
}
const r = rng(0x9e3779b9);
const pick = (a, rr = r) => a[Math.floor(rr() * a.length)];

// Names in the styles that end up in the same profile: Go packages and
// methods, JS functions with their module, C++ runtime frames.
const syl = ['get', 'set', 'read', 'write', 'parse', 'emit', 'load', 'store', 'flush', 'handle',
	'dispatch', 'visit', 'encode', 'decode', 'resolve', 'fetch', 'render', 'update', 'apply',
	'build', 'merge', 'scan', 'match', 'walk', 'push', 'pop', 'alloc', 'free', 'lock', 'wait'];
const noun = ['Request', 'Response', 'Header', 'Buffer', 'Node', 'Tree', 'Entry', 'Cache', 'Token',
	'Frame', 'Stream', 'Chunk', 'Record', 'Table', 'Index', 'Route', 'Session', 'Queue', 'Task',
	'Batch', 'Object', 'Value', 'Key', 'Slice', 'Map', 'Field', 'Schema', 'Event', 'Timer', 'Span'];
const dir = ['net', 'http', 'internal', 'pkg', 'cache', 'store', 'proto', 'json', 'runtime', 'sync',
	'api', 'server', 'client', 'worker', 'router', 'codec', 'db', 'sql', 'io', 'util', 'auth', 'log'];
const mods = [];
for (let i = 0; i < NMOD; i++) {
	const k = 1 + Math.floor(r() * 3);
	const parts = [];
	for (let j = 0; j < k; j++)
		parts.push(pick(dir));
	mods.push(parts.join('/'));
}
const names = [];
for (let i = 0; i < NFUNC; i++) {
	const style = r();
	const m = pick(mods), v = pick(syl), n = pick(noun);
	let name;
	if (style < 0.5)
		name = r() < 0.5 ? `${m}.(*${n}).${v}${pick(noun)}` : `${m}.${v}${n}`;
	else if (style < 0.85)
		name = r() < 0.3 ? `${v}${n}` : `${n}.${v}${pick(noun)}`;
	else
		name = `v8::internal::${n}::${v[0].toUpperCase()}${v.slice(1)}${pick(noun)}`;
	names.push(r() < 0.2 ? `${name}_${i}` : name);
}
// The call graph: callees of each function, lower ids nearer the roots so
// that walks go somewhere and end.
const callees = [];
for (let i = 0; i < NFUNC; i++) {
	const k = 2 + Math.floor(r() * 7), c = [];
	for (let j = 0; j < k; j++) {
		const span = Math.max(20, Math.floor((NFUNC - i) * 0.3));
		c.push(Math.min(NFUNC - 1, i + 1 + Math.floor(r() * r() * span)));
	}
	callees.push(c);
}
function zipf(n, rr) {
	// index in [0, n) with odds ~ 1/(i+1)
	let h = 0;
	for (let i = 0; i < n; i++)
		h += 1 / (i + 1);
	let x = rr() * h;
	for (let i = 0; i < n; i++) {
		x -= 1 / (i + 1);
		if (x <= 0)
			return i;
	}
	return n - 1;
}

// Distinct stacks in the order walks find them; 10% more than a capture
// holds, so the second capture can have new ones.
const want = Math.floor(NSTACKS * 1.1);
const seen = new Set(), stacks = [];
while (stacks.length < want) {
	let f = Math.floor(r() * NROOT);
	const st = [f];
	for (;;) {
		const depth = st.length;
		if (depth >= 64 || (depth > 3 && r() < 0.15))
			break;
		f = callees[f][zipf(callees[f].length, r)];
		st.push(f);
	}
	const key = st.map((i) => names[i]).join(';');
	if (!seen.has(key)) {
		seen.add(key);
		stacks.push(key);
	}
}
seen.clear();

function count(rr) {
	// heavy-tailed: mostly small, a few very large
	const x = rr();
	return 1 + Math.floor(Math.exp(x * x * x * 12));
}
const hot = new Set();
for (let i = 0; i < 12; i++)
	hot.add(names[Math.floor(r() * NFUNC)]);

async function write(path, list) {
	list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
	const ws = createWriteStream(path);
	let buf = [];
	for (const [s, v] of list) {
		buf.push(s, ' ', String(v), '\n');
		if (buf.length > 40000) {
			if (!ws.write(buf.join('')))
				await new Promise((res) => ws.once('drain', res));
			buf = [];
		}
	}
	ws.write(buf.join(''));
	await new Promise((res) => ws.end(res));
}

const drop = Math.floor(NSTACKS * 0.1);
const ra = rng(0x1234567), rb = rng(0x7654321);
const a = stacks.slice(0, NSTACKS).map((s) => [s, count(ra)]);
const b = stacks.slice(drop, NSTACKS + drop).map((s) => {
	let v = count(rb);
	for (const h of hot)
		if (s.endsWith(h) || s.includes(h + ';')) {
			v *= 3;
			break;
		}
	return [s, v];
});
// Comparing strings with < is by UTF-16 code unit; the names are ASCII, so
// it is bytewise order.
await write(join(out, `folded-${scale}-a.txt`), a);
await write(join(out, `folded-${scale}-b.txt`), b);
