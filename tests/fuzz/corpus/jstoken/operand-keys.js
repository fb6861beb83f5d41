const o1 = { a: T ? () => 1 : null, b: F ? null : () => 2, c: F || function () {} };
const p1 = { a: T ? () => b(1) : () => b(2), "n-n": x ?? (() => 1), 5: T && (() => 1) };
var w1 = F || (function () {}), w7 = (function () {});
ex.m5 = (function () {}); ex.w5 = T ? (async function () {}) : null;
const o6 = { j: (function () {}), k: ((x) => 1), w: (T, function () {}) };
function mk() { return { a: T ? () => 1 : null }; }
class K { f = (function () {}); static g = T ? (function () {}) : 0; }
use({ g: T ? function () {} : null }).g();
