// gen-sourcemap.mjs: the source-map input of bench/run.
//
//	node bench/gen-sourcemap.mjs OUTDIR [SCALE] [POSITIONS]
//
// Bundles real npm packages (bench/package.json) with esbuild, minified, with
// a source map: OUTDIR/bundle.js and OUTDIR/bundle.js.map (about 20 MB).
// Then writes OUTDIR/positions.txt: POSITIONS (default 100000) generated
// positions "LINE:COL", 1-based, drawn with a fixed seed from the bundle's own
// mapped segments (nine in ten) and from arbitrary columns (one in ten, as a
// stack trace's columns need not start a segment).
//
// SCALE > 1 writes OUTDIR/scaled-SCALE.js.map instead: the bundle SCALE times
// over, as SCALE copies of the mappings one after another (each copy with
// its own sources and names), and SCALE * POSITIONS positions over all copies,
// in OUTDIR/positions-SCALE.txt.  Deterministic: the same packages give the
// same bytes.
import { build } from 'esbuild';
import { decode, encode } from '@jridgewell/sourcemap-codec';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || join(here, 'out');
const scale = Number(process.argv[3] || 1);
const npos = Number(process.argv[4] || 100000);
mkdirSync(out, { recursive: true });

// Whole namespaces are kept reachable, so tree shaking leaves the packages
// whole, as in an application that uses much of each.
const packages = ['three', 'lodash-es', 'date-fns', 'rxjs', 'd3', 'react',
	'react-dom', 'react-dom/server', 'vue', 'chart.js', 'zod', 'acorn',
	'@babel/parser', '@babel/traverse', '@babel/generator', 'terser', 'moment',
	'highlight.js', 'luxon', 'immutable'];

// xorshift32: the same positions on every machine.
let seed = 0x2545f491;
function rand() {
	seed ^= seed << 13; seed >>>= 0;
	seed ^= seed >>> 17;
	seed ^= seed << 5; seed >>>= 0;
	return seed / 4294967296;
}

async function bundle() {
	const js = join(out, 'bundle.js'), map = js + '.map';
	if (existsSync(map))
		return;
	const entry = packages.map((p, i) => `import * as m${i} from '${p}';`).join('\n') +
		`\nglobalThis.__bench = [${packages.map((_, i) => 'm' + i).join(', ')}];\n`;
	await build({
		stdin: { contents: entry, resolveDir: here, sourcefile: 'bench-entry.js' },
		bundle: true, minify: true, sourcemap: true, format: 'iife',
		platform: 'browser', target: 'es2020', outfile: js, logLevel: 'error',
		define: { 'process.env.NODE_ENV': '"production"' },
		// node built-ins that some packages name for their CLI paths
		external: ['fs', 'path', 'os', 'url', 'module', 'util', 'crypto',
			'child_process', 'stream', 'zlib', 'events', 'assert'],
	});
}

function positions(lines, count) {
	// all segments' generated positions, to draw from
	const segs = [];
	for (let l = 0; l < lines.length; l++)
		for (const s of lines[l])
			segs.push(l, s[0]);
	const nseg = segs.length / 2, res = [];
	for (let i = 0; i < count; i++) {
		const k = Math.floor(rand() * nseg);
		let col = segs[2 * k + 1];
		if (rand() < 0.1)
			col += Math.floor(rand() * 40);
		res.push(`${segs[2 * k] + 1}:${col + 1}`);
	}
	return res.join('\n') + '\n';
}

await bundle();
const map = JSON.parse(readFileSync(join(out, 'bundle.js.map'), 'utf8'));
const lines = decode(map.mappings);
if (scale === 1) {
	writeFileSync(join(out, 'positions.txt'), positions(lines, npos));
} else {
	const ns = map.sources.length, nn = map.names.length;
	const big = {
		version: 3, file: `scaled-${scale}.js`, sources: [], sourcesContent: [],
		names: [], mappings: '',
	};
	const all = [];
	for (let c = 0; c < scale; c++) {
		big.sources.push(...map.sources.map((s) => `copy${c}/${s.replace(/^(\.\.\/)+/, '')}`));
		if (map.sourcesContent)
			big.sourcesContent.push(...map.sourcesContent);
		big.names.push(...map.names);
		for (const line of lines)
			all.push(line.map((s) => s.length === 1 ? [s[0]] :
				s.length === 4 ? [s[0], s[1] + c * ns, s[2], s[3]] :
				[s[0], s[1] + c * ns, s[2], s[3], s[4] + c * nn]));
	}
	if (!map.sourcesContent)
		delete big.sourcesContent;
	big.mappings = encode(all);
	writeFileSync(join(out, `scaled-${scale}.js.map`), JSON.stringify(big));
	writeFileSync(join(out, `positions-${scale}.txt`), positions(all, npos * scale));
}
