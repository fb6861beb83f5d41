// Writes what @jridgewell/trace-mapping says for positions of a map, in
// sourcemap-lookup's output form (1-based lines and columns, sources named
// as DESIGN.md "Decisions" says), for t0510's golden file.
//   node trace-mapping.mjs MAP POSITIONS >expected
// POSITIONS: a file of 1-based LINE:COL lines.  Needs
// `npm install @jridgewell/trace-mapping` somewhere on NODE_PATH.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const { TraceMap, originalPositionFor } = require('@jridgewell/trace-mapping');
const [map, positions] = process.argv.slice(2);
const tm = new TraceMap(readFileSync(map, 'utf8'));

function name(source) {
	const out = [];
	for (const seg of source.split('/')) {
		if (seg === '' || seg === '.') continue;
		if (seg === '..') out.pop();
		else out.push(seg);
	}
	return (source.startsWith('/') ? '/' : '') + out.join('/');
}

for (const line of readFileSync(positions, 'utf8').split('\n')) {
	if (!line) continue;
	const [l, c] = line.split(':').map(Number);
	const p = originalPositionFor(tm, { line: l, column: c - 1 });
	if (p.line == null) {
		console.log('-');
		continue;
	}
	const src = p.source == null ? '?' : name(p.source);
	console.log(`${src}:${p.line}:${p.column + 1}${p.name ? ' ' + p.name : ''}`);
}
