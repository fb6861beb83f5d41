/*
 * test_jstoken.c: libsourcemap's JavaScript/TypeScript tokenizer and
 * function finder: the name V8 gives each style of function, where V8
 * puts it, what the tokenizer refuses; and smap_function_at() on a small
 * minified script and its map.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../jswalk_ref.h"
#include "jstoken.h"
#include "smap_private.h"
#include "sourcemap.h"

/* The names of SRC's functions, in order of their V8 position, each
 * followed by '@' and the text at that position's first byte: "f@( g@x";
 * JS: SRC read as JavaScript (pp_js_functions_in()), else TypeScript. */
static void names_of(const char *src, bool js, bool jsx, char *out, size_t cap)
{
	struct pp_js_toks v;
	struct pp_js_funcs fs;
	size_t at = 0;

	assert_int_equal(pp_js_tokenize_jsx(src, strlen(src), jsx, &v, NULL), 0);
	assert_int_equal(pp_js_functions_in(src, &v, js, &fs), 0);
	out[0] = '\0';
	for (size_t i = 0; i < fs.n; i++) {
		char nb[128];
		pp_js_func_name_in(src, &v, &fs, &fs.f[i], nb, sizeof(nb));
		at += (size_t)snprintf(out + at, cap - at, "%s%s@%c", i ? " " : "",
				       nb[0] ? nb : "-", src[v.t[fs.f[i].start].off]);
		assert_true(at < cap);
	}
	pp_js_funcs_release(&fs);
	pp_js_toks_release(&v);
}

/* SRC's names are WANT, read as TypeScript (NAMES), JavaScript or
 * TypeScript with JSX (a .tsx file) */
#define NAMES_AS(js, jsx, src, want)                        \
	do {                                                \
		char got_[1024];                            \
		names_of(src, js, jsx, got_, sizeof(got_)); \
		assert_string_equal(got_, want);            \
	} while (0)
#define NAMES(src, want) NAMES_AS(false, false, src, want)
#define JS_NAMES(src, want) NAMES_AS(true, false, src, want)
#define JSX_NAMES(src, want) NAMES_AS(false, true, src, want)

static void test_jstoken_declarations(void **state)
{
	(void)state;
	NAMES("function mix(n: number): number { return n }", "mix@(");
	NAMES("export async function load(a) { await a }", "load@(");
	NAMES("function* countUp(n) { yield n }", "countUp@(");
	NAMES("export default function defaultExported(n) {}", "defaultExported@(");
	NAMES("export default function (n) {}", "default@(");
	NAMES("function f<T>(a: T): T { return a }", "f@(");
	/* an overload signature has no body */
	NAMES("function f(a: string): void;\nfunction f(a) {}", "f@(");
	/* a member's key may be a word that starts a statement elsewhere */
	NAMES("class A { delete(id) { x() } catch(e) { try {} catch (e) {} } static new(a) {} }",
	      "delete@( catch@( new@(");
	NAMES("const it = { return(v) { if (v) {} }, async *throw(e) {} }; try {} catch (e) {}",
	      "return@( throw@(");
	/* in an object literal that is a conditional's second branch */
	JS_NAMES("extend(i, r ? { add: m(\"add\") } : { add(v) { return 1 }, delete(key) { return 2 } });",
		 "add@( delete@(");
}

/* A return type whose type arguments hold a comma or a function type
 * (Map<string, number>, Promise<Map<K, Array<V>>>): the function is found
 * wherever one is declared; a comparison after a call's ':' is no such
 * type (the call is no method). */
static void test_jstoken_return_types(void **state)
{
	(void)state;
	NAMES("function f(): Map<string, number> { return m }", "f@(");
	NAMES("export async function g(): Promise<Map<string, Array<number>>> { return m }", "g@(");
	NAMES("function* h(): Generator<number, void, unknown> { yield 1 }", "h@(");
	NAMES("function q<T extends Record<string, unknown>, U>(a: T): Pair<T, U> { return a }",
	      "q@(");
	NAMES("function c(\n\tn: number,\n\tk?: string | symbol,\n): Map<string, (x: number) => void> "
	      "{ return m }",
	      "c@(");
	NAMES("function ov(a: string): Map<A, B>;\nfunction ov(a) { return a }", "ov@(");
	NAMES("class R<K, V> { entries(n): Array<{ key: K, value: V }> { return [] } "
	      "get size(): Map<string, number> { return m } "
	      "static of<A, B>(a: A, b: B): R<A, B> { return r } "
	      "async settle(): Promise<Record<string, number>> { return r } }",
	      "entries@( get size@( of@( settle@(");
	NAMES("const t = { lookup(n): Record<string, number> { return r }, "
	      "convert: function (n): Map<number, string> { return m } };",
	      "lookup@( convert@(");
	NAMES("export default function (n): Pair<number, string> { return p }", "default@(");
	NAMES("const o = { k: c ? g(a) : b < d, m() { return 1 } };", "m@(");
	/* a function type in type arguments defines no function; an
	 * arrow after a comparison or among a call's arguments does */
	NAMES("const v: Map<A, (a: number) => void> = m;\nuse(a, (x) => x);", "-@(");
	NAMES("const w = a < b ? (x) => x : y;", "w@(");
	/* a function type as the return type: the function is found, and
	 * the type defines none; a conditional's arrow after a call stays */
	NAMES("class L { get it(): () => number { return f } m(): (a: number) => void { return g } }",
	      "get it@( m@(");
	NAMES("function isF(v: any): v is (...args: any[]) => any { return true }", "isF@(");
	NAMES("function g(): () => { a: number } { return h }", "g@(");
	NAMES("function k(): (a: number) => void { return (a) => {} }", "k@( -@(");
	NAMES("const z = c ? f(a) : () => 1;\nconst o = { m: c ? f(a) : () => {}, n() {} };",
	      "z@( o.m@( n@(");
	/* an arrow whose return type is a type predicate on a dotted name */
	NAMES("const isC = (\n  node: t.Node,\n  parent: any,\n): parent is t.Class => {\n  return true\n};\n"
	      "const isF = (value: unknown): value is Fn => typeof value;",
	      "isC@( isF@(");
	/* overloads without ';' before the one with a body; a union return
	 * type on a generic arrow */
	NAMES("export function observe<T>(\n  value: V<T>,\n  listener: (c: C<T>) => void\n): Lambda\n"
	      "export function observe<K, V>(m: M<K, V>): Lambda\n"
	      "export function observe(thing, a?, b?): Lambda {\n  return x\n}",
	      "observe@(");
	NAMES("export let getProxyDraft = <T extends any>(value: T): ImmerState | null => {\n"
	      "  return null\n}",
	      "getProxyDraft@(");
	/* an arrow whose return type is a function type, bare in a type
	 * predicate or parenthesized: the arrow's own "=>" is the last; a
	 * conditional's arrow after a call or a group stays its own */
	NAMES("const isFunction = (v: unknown): v is (...a: any[]) => any => typeof v;\n"
	      "const k = (a: number): ((b: number) => number) => (b) => a + b;\n"
	      "const t = (a): (b: number) => number => (b) => a;",
	      "isFunction@( k@( -@( t@( -@(");
	NAMES("const r = o ? g(a) : p => v[p];\nconst s = o ? (a) : p => v[p];", "r@p s@p");
	/* a call before a case's ':' and a statement is no method */
	NAMES("function needs(p) {\n  switch (p) {\n    case node(\"A\"):\n      if (x) { return 1 }\n"
	      "      break;\n  }\n}",
	      "needs@(");
}

static void test_jstoken_expressions(void **state)
{
	(void)state;
	NAMES("const busyLoop = (ms: number): number => { return ms }", "busyLoop@(");
	NAMES("let rle = function (s) {}", "rle@(");
	NAMES("const h = function named(n) {}", "named@(");
	NAMES("export const check = async (n: number): Promise<number> => n", "check@a");
	NAMES("P=i=>i*2", "P@i");
	/* a function type defines no function: a variable's, a parameter's
	 * (this too), a class field's, a parameter property's, a type
	 * alias's; an object's property and a conditional's branch do */
	NAMES("var f: (n: number) => number = (n) => n", "f@(");
	NAMES("A.prototype.s = function <T>(this: T[], f: (x: T) => number, g?: (y) => void) {}",
	      "A.s@(");
	NAMES("class A { cb: (n: number) => void; private h?: (x) => 1;"
	      " constructor(private readonly k: (x) => void) {} }",
	      "A@(");
	NAMES("type H<T> = (a: T) => T; type G = (a) => 1; const o = { f: (x) => 1 };"
	      " let z = q ? r : (x) => 2",
	      "f@( z@(");
	/* generic ones */
	NAMES("type M = <T>(x: T) => T; function g(cb: <T>(x: T) => T) {}"
	      " const k: <T>(x: T) => T = <T,>(x: T) => x",
	      "g@( k@(");
	/* type parameters closed by ">>>" */
	NAMES("export const l = <K, V = Map<K, Array<number>>>(k: K, v?: V): number => 1", "l@(");
	NAMES("class P { m<T extends A<B<C>>>(a) {} } function g<T = A<B<C>>>(a) {}", "m@( g@(");
	NAMES("x.map((y) => y).reduce(function (a, b) { return a })", "-@( -@(");
	NAMES("arr.forEach(e => { go(e) })", "-@e");
	NAMES("return function scaled(n) {}", "scaled@(");
	/* an object pattern's binding, renamed or by a minifier (node: let
	 * {format: fmt = () => 1} = {} names fmt), in a parameter and an
	 * object literal too; a type before "=" stays a type */
	NAMES("let{format:e=r=>1}=o", "e@r");
	NAMES("function h({a: b = () => 2} = {}) {}", "h@( b@(");
	NAMES("f({ k: v = function () {} })", "v@(");
	/* through an operator V8 infers k.v: not the binding's name */
	NAMES("let {k: v = a || function () {}} = {}", "-@(");
	NAMES("let {k: v = (() => 1)} = {}", "v@(");
	/* nested, in a conditional, yielded (node names c, v, w, u) */
	NAMES("let {a: {b: c = () => 1}} = o; x = y ? {k: v = () => 1} : 0", "c@( v@(");
	NAMES("x = {o: {k: w = function () {}}}; function* g() { yield {k: u = () => 1} }",
	      "w@( g@( u@(");
	/* not an object: a case's block, a label's */
	NAMES("switch (t) { case x: { let a = 1, y: T = () => 1 } }", "y@(");
	/* in JavaScript "x: y =" is no type: a label, a case, a
	 * conditional's branch name the function by y (node: lbl: x =
	 * function(){} is x); in TypeScript the same text is x: T = */
	JS_NAMES("lbl: x = function () {}", "x@(");
	JS_NAMES("c ? a : b = function () {}", "b@(");
	JS_NAMES("switch (t) { case a: b = function () {} }", "b@(");
	JS_NAMES("let {k: v = a || function () {}} = {}", "-@(");
	JS_NAMES("const x = () => 1; o = {k: v = () => 2}", "x@( v@(");
	/* nor is "f(a): s =>" an arrow's return type: a call in a
	 * conditional, then a lone parameter's arrow (the bench bundle's
	 * Xde?t=>Xde.createHTML(t):t=>t; node names both K, no call
	 * following the first) */
	JS_NAMES("var K=X?t=>X.createHTML(t):t=>t;", "K@t K@t");
	JS_NAMES("a=c?f(t[s]):(s)=>t[s]", "a@(");
	NAMES("a = c ? (t): T => t : 0", "a@(");
	/* in TypeScript too a call's parentheses are no arrow's parameters
	 * (the ':' after them is the conditional's): chart.js's const read =
	 * isObject(value) ? objProps ? prop => f(...) : prop => value[prop]
	 * : () => value, all three read for node */
	NAMES("const h = isDev ? makeDev() : req => handle(req);", "h@r");
	NAMES("const read = o ? p ? prop => f(v[prop]) : prop => v[prop] : () => v;",
	      "read@p read@p read@(");
	NAMES("const q = c ? f()[0](x) : (v): number => v", "q@(");
	NAMES("const m = async (a): Promise<T> => a, k = c ? (a): T => a : 0", "m@a k@(");
	NAMES("var x: T = function () {}", "x@(");
	NAMES("const x: T = () => 1; function g(a, cb: Cb = () => 1) {}", "x@( g@( cb@(");
	NAMES("class C { x: T = () => 1; y: U = function () {} }", "x@( y@(");
}

static void test_jstoken_objects(void **state)
{
	(void)state;
	NAMES("const o = { m() {}, p: () => 1, q: function () {}, 'r s'(x) {} }",
	      "m@( p@( q@( r s@(");
	NAMES("registry.encodeAll = function (n) {}", "registry.encodeAll@(");
	NAMES("a.b.c = () => {}", "a.b.c@(");
	/* V8 names a function through the expression that holds it (node
	 * --cpu-prof): a conditional's branches, logical operands, groups,
	 * sequences in a group, array elements; a call's arguments and a
	 * function called where it is written stay anonymous */
	NAMES("x = c ? () => 1 : () => 2", "x@( x@(");
	NAMES("qx=cf?function(t){return t}:sa", "qx@(");
	NAMES("var y = z ? 0 : function () {}", "y@(");
	NAMES("var r = a ? b : c ? () => 1 : 0", "r@(");
	/* a first branch that is a conditional itself, its "?" and ":"
	 * paired; a call removes the one function collected last (V8's
	 * %FunctionGetInferredName of each: a, -, a) */
	NAMES("a = c ? r ? (s) => 1 : (s) => 2 : () => 3", "a@( a@( a@(");
	JS_NAMES("a=c?r?s=>1:s=>2:()=>w()", "a@s -@s a@(");
	JS_NAMES("a=c?r?q?s=>1:s=>2:()=>3:()=>4", "a@s a@s a@( a@(");
	JS_NAMES("a=c?r?s=>w():s=>w():()=>w()", "-@s -@s a@(");
	/* in TypeScript w() : (s) => is the same call (not an arrow's
	 * parameters with a return type); an async arrow's are no call */
	NAMES("a = c ? r ? (s) => w() : (s) => w() : () => w()", "-@( -@( a@(");
	NAMES("const h = [(e) => { S() }, async (e) => { S() }, (e) => 1]", "-@( h@a h@(");
	NAMES("x = c ? a => b : function () {}", "x@a x@(");
	/* node --cpu-prof: var space = c ? function () {} : function () {}
	 * names both space (terser's output.js writes such) */
	NAMES("var space = c ? function () {} : function () {}", "space@( space@(");
	NAMES("var w = z || (() => 1)", "w@(");
	NAMES("var q = !a && b > 0 ? () => 1 : 0", "q@(");
	NAMES("var m = c.toString() ? () => 1 : 0", "m@(");
	NAMES("var n = a ?? ((n) => n)", "n@(");
	NAMES("var d = (function () {})", "d@(");
	NAMES("var e = (0, () => 1)", "e@(");
	NAMES("var t = c ? (0, function () {}) : 0", "t@(");
	NAMES("var a2 = [() => 1]", "a2@(");
	/* every element (node --cpu-prof: const middleware = [function
	 * logger() {}, (a, next) => {}] is logger, middleware), past the
	 * functions and arrows before it; a call's arguments stay anonymous */
	NAMES("const m = [function logger(a) {}, (a, next) => {}]", "logger@( m@(");
	NAMES("x = [() => 1, () => 2]", "x@( x@(");
	NAMES("var r = [function () {}, async (a): T => a, b => b]", "r@( r@a r@b");
	NAMES("const o = [a, function* g() {}, async function () {}]", "g@( o@(");
	NAMES("foo(() => 1, () => 2)", "-@( -@(");
	/* node --cpu-prof: V8 collects a function when it ends; a later
	 * call (in an arrow's body too, not a function's or a method's)
	 * drops the last one collected, as x += does; an assignment or a
	 * declaration names those collected by its own target */
	NAMES("const h=[(e)=>{S();log(e)},(e)=>{S();send(e)},(e)=>{S()}]", "-@( -@( h@(");
	NAMES("var x1 = c ? () => 1 : () => { S() }", "-@( x1@(");
	NAMES("const a = [x => S(x), y => 1]", "a@x a@y");
	NAMES("const arr2 = [function () { return S() }, function () { S2() }]", "arr2@( arr2@(");
	NAMES("const v = [() => S(), () => { t += 1 }, () => 2]", "-@( v@( v@(");
	NAMES("const q = [() => S(), () => { let z = 1; return z }]", "z@( q@(");
	NAMES("const w = [() => S(), () => { z2 = 1; }]", "z2@( w@(");
	/* an object literal after a class expression is no class body */
	NAMES("f(class {}, { a: (x) => 1 })", "a@(");
	/* an assignment's right side first, then the assignment: a call
	 * there drops one, and x = f() (x = new X()) drops one more */
	NAMES("const q3 = [() => S(), () => { let z = S2() + 1; return z }]", "-@( q3@(");
	NAMES("const q2 = [() => S(), () => { let z = new X(); return z }]", "-@( q2@(");
	NAMES("const d = [['y', (a) => S()], ['q', (a) => S()], ['m', (a) => 2],"
	      " ['w', (a) => { const days = dayDiff(a); return S() }]]",
	      "-@( -@( -@( d@(");
	NAMES("x=a?()=>1:b?()=>2:()=>3", "x@( x@( x@(");
	NAMES("class K { constructor(a) { this.ctx = a || (() => 1) } }", "K@( K.ctx@(");
	NAMES("const f: T = c ? (n: number) => n : g", "f@(");
	NAMES("var i = (function () {})()", "-@(");
	NAMES("var j = function () {}()", "-@(");
	NAMES("var p = c ? (function () {})() : 0", "-@(");
	NAMES("var s = (function () {}).call(this)", "-@(");
	NAMES("var b = function () {}.bind(null)", "-@(");
	NAMES("var g = a || f(function () {})", "-@(");
	NAMES("x = a, function () {}", "-@(");
	NAMES("return a || function () {}", "-@(");
	NAMES("x = a => b || function () {}", "x@a -@(");
	NAMES("var z = a[function () {}]", "-@(");
	/* a generic arrow (TypeScript): its type parameters are its head */
	NAMES("const f = <T,>(a: T) => a", "f@(");
	NAMES("const g = <T, U extends Array<T>>(a: T, b: U): U => b", "g@(");
	NAMES("export const h = async <T>(a: T): Promise<T> => a", "h@(");
	NAMES("f(<T,>(a: T) => a)", "-@(");
	/* a ">>" closing two type parameter lists before a method's or a
	 * function's "(": no method named after an inner type */
	NAMES("class P { m<T extends A<B<C>>, D>(a) {} }", "m@(");
	NAMES("function u<N, L extends Y<Z<N, K>>, M>(a) {}", "u@(");
	/* an object's key through a conditional: V8 says o.q (more in
	 * test_jstoken_operand_keys) */
	NAMES("var o = { q: c ? () => 1 : 0 }", "o.q@(");
	/* a computed member (node --cpu-prof): a string's or a plain
	 * template's value, else <computed>; "prototype" left out, "this" too,
	 * a capitalized enclosing function put first */
	NAMES("a['lit'] = function () {}", "a.lit@(");
	NAMES("a[`t`] = () => 1", "a.t@(");
	NAMES("e2['a.b'] = () => 1", "e2.a.b@(");
	NAMES("h[''] = () => 1", "h.@(");
	NAMES("a[1] = () => 1", "a.<computed>@(");
	NAMES("handlers[key] = () => 1", "handlers.<computed>@(");
	NAMES("a[k + 'x'] = () => 1", "a.<computed>@(");
	NAMES("a.b[k] = function () {}", "a.b.<computed>@(");
	NAMES("a.c[0].d = function () {}", "a.c.<computed>.d@(");
	NAMES("Foo.prototype[Symbol.iterator] = function () {}", "Foo.<computed>@(");
	NAMES("function Cap() { this.q[k] = function () {} }", "Cap@( Cap.q.<computed>@(");
	NAMES("function low() { this[k] = function () {} }", "low@( <computed>@(");
	/* assignments in a chain (node --cpu-prof): every member target,
	 * outer first; a plain variable ends them, this.x's "this" is left
	 * out; an inner plain variable names it alone */
	NAMES("t.a.f = t.b.f = function () {}", "t.a.f.t.b.f@(");
	NAMES("a.p.q = a.r = a.s = () => 1", "a.p.q.a.r.a.s@(");
	NAMES("c = a.b = function () {}; var d = a.e = function () {}", "a.b@( a.e@(");
	NAMES("a.h = c2 = function () {}; u = w = () => 1", "c2@( w@(");
	NAMES("this.z = a.y = function () {}", "z.a.y@(");
	/* not named so: an escaped key (V8 takes its value, not decoded
	 * here), an array pattern, a type */
	/* a member with a computed key: V8 names it by what holds it, the
	 * binding of its class expression or object literal (node
	 * --cpu-prof), nothing in a class declaration; not named here where
	 * V8's inference is not followed: an argument's (V8: the callee's
	 * name), this.h = { } (V8: E.h in a constructor of E), a value
	 * through a conditional (V8: s) */
	NAMES("var A = class { *[Symbol.iterator]() {} [k]() {} static [k + 's']() {} }",
	      "A@( A@( A@(");
	NAMES("var A = class { [k] = () => 1; static [k2] = () => 2; get [k3]() { return 1 } }",
	      "A@( A@( A@(");
	NAMES("let B = class Named extends X<Y> { [k]() {} }", "B@(");
	NAMES("let C; C = class { [k]() {} }; ns.D = class { [k]() {} }", "C@( ns.D@(");
	NAMES("const obj = { [k]() {}, [k2]: function () {}, [k3]: () => 1 }", "obj@( obj@( obj@(");
	NAMES("const p = { get [k]() {}, [k2]: async () => 1, *[k3]() {} }", "p@( p@a p@(");
	NAMES("const o = { a: { [k]() {} } }; var q; q = { m: { n: { [k]() {} } } }",
	      "o.a@( q.m.n@(");
	NAMES("const r = [{ [k]() {} }, { [k]() {} }]", "r@( r@(");
	/* asked in order, each from the last answer: nested and after */
	NAMES("const o = { [a]() {}, b: { [c]() {}, [d]: () => 1 }, [e]() {} }",
	      "o@( o.b@( o.b@( o@(");
	NAMES("const o = { [f(() => 1)]() {}, [g]: [{ [h]() {} }] }", "-@( o@( -@(");
	NAMES("class E { [k]() {} x = { [k]() {} }; static y = { [k]() {} } }", "-@( x@( y@(");
	NAMES("export default class F { [k]() {} }", "-@(");
	NAMES("f({ [k]() {} }); this.h = { [k]() {} }", "-@( -@(");
	/* export const in a namespace: the compilers make it NS.f = , and
	 * V8 says NS.f (the innermost namespace's name); not a declaration,
	 * nor a binding not exported */
	NAMES("namespace Stats { export const mean = (n) => n; const own = () => 1;"
	      " export function median(n) {} }",
	      "Stats.mean@( own@( median@(");
	NAMES("namespace A.B { export let f = function () {} } module C { export var g = () => 1 }",
	      "B.f@( C.g@(");
	NAMES("namespace S { export namespace Inner { export const h: F = (n) => n } }",
	      "Inner.h@(");
	NAMES("function ns() { export const x = () => 1 }", "ns@( x@(");
	/* a computed key, through a conditional too: the object's binding */
	NAMES("const s = { [k]: c ? () => 1 : 0, ['lit']: () => 1 }", "s@( s@(");
	NAMES("e['a\\u0062'] = () => 1", "-@(");
	NAMES("return [a] = function () {}", "-@(");
	NAMES("const t: F[] = function () {}", "t@(");
}

/* A name longer than the buffer: cut there, and its length is what the
 * buffer holds (a caller copies that many bytes). */
static void test_jstoken_long_name(void **state)
{
	(void)state;
	char src[2048], buf[64];
	int at = snprintf(src, sizeof(src), "x = ");
	for (int i = 0; i < 100; i++)
		at += snprintf(src + at, sizeof(src) - (size_t)at, "a.b%d = ", i);
	snprintf(src + at, sizeof(src) - (size_t)at, "function () {}");
	struct pp_js_toks v;
	struct pp_js_funcs fs;
	assert_int_equal(pp_js_tokenize(src, strlen(src), &v), 0);
	assert_int_equal(pp_js_functions(src, &v, &fs), 0);
	assert_int_equal(fs.n, 1);
	size_t n = pp_js_func_name(src, &v, &fs.f[0], buf, sizeof(buf));
	assert_int_equal(n, sizeof(buf) - 1);
	assert_int_equal(strlen(buf), n);
	assert_memory_equal(buf, "a.b0.a.b1.", 10);
	pp_js_funcs_release(&fs);
	pp_js_toks_release(&v);
}

static void test_jstoken_classes(void **state)
{
	(void)state;
	NAMES("class Matrix { constructor(n) { this.n = n } multiply(r) {} static identity(n) {}"
	      " #secret(r) {} get size() { return 1 } set size(v) {} }",
	      "Matrix@( multiply@( identity@( #secret@( get size@( set size@(");
	NAMES("class Counter { tick = (n) => n; constructor() { this.reset = function () {} } }",
	      "tick@( Counter@( Counter.reset@(");
	NAMES("var m=class{constructor(e){}}", "m@(");
	/* V8 (node --cpu-prof): the constructor of a class expression bound
	 * to a member is named by the whole binding, as a function there
	 * would be; a class's own name wins */
	NAMES("registry.Codec = class { constructor(n) {} run() {} }", "registry.Codec@( run@(");
	NAMES("ns.a.B = class Named { constructor(n) {} }", "Named@(");
	NAMES("x = y = class { constructor(n) {} }; x = y = function () {}", "y@( y@(");
	NAMES("function Holder() { this.K = class { constructor(n) {} } }"
	      " function low() { this.L = class { constructor(n) {} } }",
	      "Holder@( Holder.K@( low@( L@(");
	NAMES("function H() { const self = this; self.K = class { constructor() {} } }",
	      "H@( H.self.K@(");
	/* in the constructor of a class bound to a member, no class name
	 * first (V8: o.a, f), as in a declared one (D1.o.a, D1.g) */
	NAMES("registry.D = class { constructor() { const o = { a: new P(() => 1) };"
	      " this.f = function () {} } }",
	      "registry.D@( o.a@( f@(");
	NAMES("var D1 = class { constructor() { const o = { a: new P(() => 1) };"
	      " this.g = function () {} } }",
	      "D1@( D1.o.a@( D1.g@(");
	NAMES("class A { @dec() measure(n: number): number { return n } }", "measure@(");
	NAMES("class B { async *gen() {} public async load<T>(a: T): Promise<T> { return a } }",
	      "gen@( load@(");
	/* V8 (node --cpu-prof): a member binding made in a function whose
	 * name has a capital first takes that name first (the innermost
	 * function only; a method's lowercase name adds nothing); a
	 * variable does not; "prototype" is left out of a dotted name */
	NAMES("function Foo() { this.x = function () {}; var _this = this;"
	      " _this.y = function () {}; var z = function () {} }",
	      "Foo@( Foo.x@( Foo._this.y@( z@(");
	NAMES("function foo() { this.x = function () {} }", "foo@( x@(");
	NAMES("class K { m() { this.y = function () {} } constructor() { this.z = () => 1 } }",
	      "m@( y@( K@( K.z@(");
	NAMES("function A() { function B() { this.x = function () {} } }", "A@( B@( B.x@(");
	/* V8 (node --cpu-prof): an argument of new X() that is a
	 * field's or a property's value is named by it; not where a
	 * variable or an assignment takes the new expression itself, nor in
	 * a call */
	NAMES("class Conn { ready = new Promise((r) => r(1)); static boot = new P(function (r) {});"
	      " #q: Promise<void> = new Promise((r) => {}) }",
	      "ready@( boot@( #q@(");
	NAMES("const state = { init: new Promise((r) => r(3)), n: { deep: new P((r) => 1) } };"
	      " function make() { return { p: new P((r) => 1) } }",
	      "state.init@( -@( make@( p@(");
	NAMES("const s: State = { a: new C(1, function () {}) }; var t = { a: new C(function () {}, 2),"
	      " b: new C(function () {}, g(0)) }",
	      "s.a@( t.a@( -@(");
	NAMES("var Conn = class Inner { ready = new Promise((r) => 1) }; x = class { q = new P(() => 1) };"
	      " a.b = class { r = new P(() => 1) }; const o = { K: class { s = new P(() => 1) } }",
	      "Conn.ready@( x.q@( -@( -@(");
	NAMES("class T { done: Promise<number> = new Promise<number>((resolve) => resolve(1)) }",
	      "done@(");
	/* x = y = new P(): no field y; a field in a function whose name has
	 * a capital first, that name first; export const in a namespace
	 * runs as NS.st = (NS.st.a): not said */
	JS_NAMES("class K2 { x = y2 = new P(() => 1); static z = w = new P(() => 1) }", "-@( -@(");
	NAMES("function Outer() { class K { a = new P(() => 1) } }"
	      " function Mk() { var C = class { r = new P(() => 1) } }",
	      "Outer@( Outer.a@( Mk@( Mk.C.r@(");
	NAMES("namespace NS { export const st = { a: new P(() => 1) } }", "-@(");
	/* in a function whose name has a capital first, that name first
	 * (function S(e) { return {p: new Promise(t => …)} } is S.p) */
	NAMES("function S(e) { return { p: new P((t) => 1) } } function Make() {"
	      " const state = { init: new P(() => 1) } } function low() { return { q: new P(() => 1) } }",
	      "S@( S.p@( Make@( Make.state.init@( low@( q@(");
	NAMES("const x = new P((r) => 1); o.z = new P(() => 1); f({ a: new P(() => 1) });"
	      " var w = { m: new C(function named() {}) }; var u = { k: new C(() => 1).then() }",
	      "-@( -@( -@( named@( -@(");
	NAMES("var P = function () { var self = this; self.d = function () {} }", "P@( P.self.d@(");
	NAMES("function C() { [1].forEach(function () { self.q = function () {} }) }",
	      "C@( -@( self.q@(");
	NAMES("var O = (function () { function O() {} O.prototype.sub = function () {};"
	      " return O; }())",
	      "-@( O@( O.sub@(");
}

/* The name V8 gives a class's default constructor: the class's own,
 * else the binding of the class expression; none for an anonymous one. */
/* What V8's name inferrer still holds from the code around a member
 * binding (node --cpu-prof on each): the names of an unfinished
 * expression, through a function in parentheses or after "!" (parsed with
 * it), not through one parsed on its own (a callback), a statement's end
 * (also where a line ends one) or a finished group. */
static void test_jstoken_inferrer_stack(void **state)
{
	(void)state;
	/* React's development builds */
	JS_NAMES("\"production\" !== process.env.NODE_ENV && (function () {\n"
		 "  exports.jsx = function (t) {};\n"
		 "  exports.a = exports.b = function () {}, R.c = () => 1;\n"
		 "  var q = function () {}; exports.o = { m: function () {} };\n"
		 "})();",
		 "-@( process.env.NODE_ENV.exports.jsx@( "
		 "process.env.NODE_ENV.exports.a.exports.b@( process.env.NODE_ENV.R.c@( q@( m@(");
	JS_NAMES("a.b && !function Baz () { R.f2 = function () {}; }();\n"
		 "(function Foo () { this.f1 = function () {}; }).call(o);\n"
		 "function Bar () { this.f3 = function () {}; }\n"
		 "function Qux () { (function () { R.f4 = function () {}; })(); }\n"
		 "y = a[\"b\"] ? (() => { if (x) { R[\"f5\"] = function () {}; } })() : 0;",
		 "Baz@( a.b.R.f2@( Foo@( f1@( Bar@( Bar.f3@( Qux@( -@( Qux.R.f4@( -@( a.b.R.f5@(");
	/* in the same function: the names before its own group */
	JS_NAMES("function reg (hook) { w = hook.__wdc || (hook.__wdc = () => 1); }\n"
		 "function zz (i) { (_a = i._zod).check ?? (_a.check = (p) => 1); }\n"
		 "\"function\" === typeof b.$$F && (a.$$F = function (p) {});",
		 "reg@( hook.__wdc.hook.__wdc@( zz@( check._a.check@( b.$$F.a.$$F@(");
	/* a keyword as a property's name; a declaration's name */
	JS_NAMES("p.finally && (function () { R.h1 = function () {}; })();\n"
		 "var xx = (function () { this.h2 = function () {}; }).call(o);",
		 "-@( p.finally.R.h1@( -@( xx.h2@(");
	/* none: a callback, a call's name before another variable's, a line's
	 * end, an earlier statement, a finished argument */
	JS_NAMES("Q.each([1], function () { R.d1 = function () {}; });\n"
		 "call(a.b) && (function () { R.c8 = function () {}; })();\n"
		 "R.default = /ab(c)/g\n"
		 "R.g1 = function () {}\n"
		 ";[1].forEach(function () {})\n"
		 "R.g2 = function () {}\n"
		 "a.b; R.g3 = function () {};",
		 "-@( R.d1@( -@( R.c8@( R.g1@( -@( R.g2@( R.g3@(");
	/* an object literal's keys */
	JS_NAMES("R.w = {p: 1, q: a.b && (function () { R.c23 = function () {}; })()};\n"
		 "foo({p: (function () { R.c25 = function () {}; })()});\n"
		 "var u = {\"k-1\": (function () { this.c26 = function () {}; }).call(R)};",
		 "-@( R.w.q.a.b.R.c23@( -@( foo.p.R.c25@( -@( u.k-1.c26@(");
	/* not parsed with the code around: an arrow in parentheses not
	 * called at once, a TypeScript call's argument (f<T>(...)) */
	JS_NAMES("const init = cfg.init || ((app) => { app.get = function () {}; });\n"
		 "a.b && (() => { R.v = function () {}; }).call(null);\n"
		 "var w = ((m) => { exports.w = function () {}; });",
		 "init@( app.get@( -@( R.v@( w@( exports.w@(");
	NAMES("api.foo<Bar>(function () { R.x = function () {}; });", "-@( R.x@(");
	/* a statement's end at a line's end: after x++, before !function */
	JS_NAMES("(function () {\n  var o = {n: 0}\n  o.n++\n  R.i7 = function () {}\n})()\n"
		 "var x = a.b\n!function () { R.j = function () {} }()",
		 "-@( R.i7@( -@( R.j@(");
	/* a template's ${}: not known here, as before */
	JS_NAMES("`${a.b}` && (function () { R.e4 = function () {}; })();", "-@( R.e4@(");
	/* not known here: what the name would hold stays as before (x: T
	 * is a type) */
	NAMES("const x: T = a.b && (function () { R.c27 = function () {}; })();", "-@( R.c27@(");
}

/* A function in an array that is an object literal's property's value:
 * the object's binding and the key, as V8 infers it while it still holds
 * the function (node --cpu-prof on each). */
static void test_jstoken_array_keys(void **state)
{
	(void)state;
	JS_NAMES("const routes = { list: [(q) => s(q), function (q) {}], "
		 "nested: { deep: [(q) => 1] } };\n"
		 "cfg.handlers = { get: [(q) => 1] };\n"
		 "const table = [{ run: [(q) => 1] }];\n"
		 "function mk () { return { items: [(q) => 1] }; }\n"
		 "const o3 = { \"x-y\": [(q) => 1], 5: [(q) => 1] };\n"
		 "class K { static H = { l8: [(q) => 1] }; }",
		 "routes.list@( routes.list@( routes.nested.deep@( cfg.handlers.get@( "
		 "table.run@( mk@( items@( o3.x-y@( o3.5@( H.l8@(");
	/* a call after it drops it; not an array the value is alone */
	JS_NAMES("const A = { l1: [(q) => { id(1); return q; }, (q) => s(q)] };\n"
		 "const B = { l2: [(q) => 1, id(2)] };\n"
		 "const C = { l3: [(q) => 1].concat([]) };\n"
		 "const D = { l4: [...[], (q) => 1] };",
		 "-@( A.l1@( -@( -@( D.l4@(");
	/* x?.() is a call too */
	JS_NAMES("const L = { list: [() => 1, (x) => x?.()] };", "-@( L.list@(");
	/* an argument's object: the callee first; in a function V8 parses
	 * on its own, its name when a capital starts it */
	JS_NAMES("const E = id({ l5: [(q) => 1] });\n"
		 "function Table () { return { items: [(q) => 1] }; }\n"
		 "let W; W = [0, { c: [(q) => 1] }];",
		 "id.l5@( Table@( Table.items@( W.c@(");
}

/* Functions an object's key holds through a conditional or a logical
 * operator, and functions in parentheses (each name node's, from node
 * --cpu-prof on the same code) */
static void test_jstoken_operand_keys(void **state)
{
	(void)state;
	/* V8's inferred name: the object's binding (or callee) and the key */
	JS_NAMES("const o1 = { a: T ? () => 1 : null, b: F ? null : () => 2 };\n"
		 "const o2 = { d: F || function () {}, e: T && (() => 1) };\n"
		 "const o5 = { h: { i: T ? function () {} : null } };\n"
		 "const r = use({ g: T ? function () {} : null });\n"
		 "exports.pg = { a: T ? () => 1 : F ? 1 : 2 };\n"
		 "const pa = { a: null ?? function () {} }.a;\n"
		 "const o8 = { \"n-n\": T ? () => 1 : 0, 5: T ? () => 1 : 0 };",
		 "o1.a@( o1.b@( o2.d@( o2.e@( o5.h.i@( use.g@( exports.pg.a@( pa.a@( "
		 "o8.n-n@( o8.5@(");
	/* the object after new, a logical operator, a spread, in an array,
	 * a default parameter */
	JS_NAMES("const n1 = new X({ a: T ? () => 1 : null });\n"
		 "let y1, y2; y1 = y2 = { b: T ? () => 1 : null };\n"
		 "function dp(o = { c: T ? () => 1 : null }) { return o; }\n"
		 "const s1 = { ...base, d: T ? () => 1 : null };\n"
		 "const g1 = T && { e: T ? () => 1 : null };\n"
		 "const arr = [1, { f: T ? () => 1 : null }];\n"
		 "const p1 = Object.freeze({ h: T ? () => 1 : null });",
		 "X.a@( y2.b@( dp@( o.c@( s1.d@( T.e@( arr.f@( Object.freeze.h@(");
	/* a computed key: the object's binding alone; in a returned object,
	 * anonymous */
	JS_NAMES("const o1 = { [\"m\"]: T ? () => 1 : null, [k]: T ? () => 2 : null };\n"
		 "const o2 = { [\"a\"]: [() => 1], [k + 1]: [() => 2] };\n"
		 "function mk() { return { [k]: T ? () => 3 : null }; }",
		 "o1@( o1@( o2@( o2@( mk@( -@(");
	/* a return's object: the key; a call in the other branch drops the
	 * first (as for a variable); a "," anonymous */
	JS_NAMES("function mk (s) { return { a: T ? () => 1 : null }; }\n"
		 "const p1 = { a: T ? () => b(1) : () => b(2) };\n"
		 "const o7 = { a: (T, function () {}) };",
		 "mk@( a@( -@( p1.a@( -@(");
	/* in parentheses alone: the key's own name */
	JS_NAMES("const o6 = { j: (function () {}), k: (() => 1), l: ((x) => 1), "
		 "c: (async function () {}) };",
		 "j@( k@( l@( c@(");
	/* "(function" is taken to be called at once: no inferred name, only
	 * what a variable, a field or a key names it */
	JS_NAMES("var w1 = F || (function () {});\n"
		 "var w4 = F ? null : (function () {});\n"
		 "ex.w5 = T ? (function () {}) : null;\n"
		 "var wd = T ? (async function () {}) : null;\n"
		 "ex.m5 = (function () {});\n"
		 "const o = { w: F || (function () {}), b: T ? (function () {}) : 0 };\n"
		 "var w7 = (function () {}); m9 = (function () {});\n"
		 "var wc = T && (() => 1), mc = T ? ((x) => 1) : null;\n"
		 "class K { f = (function () {}); static g = T ? (function () {}) : 0; }",
		 "-@( -@( -@( -@( -@( -@( -@( w7@( m9@( wc@( mc@( f@( -@(");
	/* in a class's constructor, V8 holds the class's name first */
	JS_NAMES("class D { constructor() { this.x = { a: T ? () => 1 : null }; "
		 "this.y = { list: [() => 1] }; g.k = function () {}; "
		 "const loc = { q: T ? () => 1 : null }; } }\n"
		 "const R = { S: class { constructor() { this.u = { c: T ? () => 1 : 0 }; } } };",
		 "D@( D.x.a@( D.y.list@( D.g.k@( D.loc.q@( S@( S.u.c@(");
	/* an object of 600 such keys (6,000 tokens): the last is named as
	 * the first, each key's '{' found from the one before */
	{
		enum { KEYS = 600 };
		char *src = malloc(KEYS * 40 + 32), *out = malloc(KEYS * 16 + 64);
		assert_non_null(src);
		assert_non_null(out);
		size_t at = (size_t)sprintf(src, "const o = {\n");
		for (int k = 0; k < KEYS; k++)
			at += (size_t)sprintf(src + at, "  k%d: c ? () => %d : null,\n", k, k);
		strcpy(src + at, "};\n");
		names_of(src, true, false, out, KEYS * 16 + 64);
		assert_true(strncmp(out, "o.k0@( o.k1@(", 13) == 0);
		size_t n = strlen(out);
		assert_true(n > 9 && strcmp(out + n - 9, " o.k599@(") == 0);
		free(src);
		free(out);
	}
}

static void test_jstoken_class_names(void **state)
{
	(void)state;
	static const char src[] =
		"const Mix = (B) => class extends B { m() {} }; var U = class _U extends E {};"
		" class V {} export default class extends W {} o = { K: class {} }; a.b = class {}";
	static const char *const want[] = {"", "_U", "V", "default", "K", "a.b"};
	struct pp_js_toks v;
	assert_int_equal(pp_js_tokenize(src, strlen(src), &v), 0);
	size_t k = 0;
	for (size_t i = 0; i < v.n; i++) {
		char nb[64];
		if (!pp_js_tok_is(src, &v.t[i], "class"))
			continue;
		assert_true(k < sizeof(want) / sizeof(want[0]));
		size_t n = pp_js_class_name(src, &v, i, nb, sizeof(nb));
		assert_string_equal(nb, want[k]);
		assert_int_equal(n, strlen(want[k]));
		k++;
	}
	assert_int_equal(k, sizeof(want) / sizeof(want[0]));
	char nb[4];
	assert_int_equal(pp_js_class_name(src, &v, 0, nb, sizeof(nb)), 0); /* not "class" */
	assert_string_equal(nb, "");
	pp_js_toks_release(&v);
}

static void test_jstoken_jsx(void **state)
{
	struct pp_js_toks v;
	(void)state;
	/* markup is opaque: quotes, slashes and brackets in its text and
	 * its attributes' strings */
	JSX_NAMES("const Cell = ({ v }) => (\n<td class=\"a'b\" title='x // y'>it's {v} / "
		  "{\"}\"} (</td>\n);\nfunction after() {}",
		  "Cell@( after@(");
	/* a function that is an attribute's whole value: named by the
	 * attribute, as compiled ({onClick: () => go()}) */
	JSX_NAMES("<a onClick={() => go()} data-x={function () {}} on:y={(e) => 1}/>",
		  "onClick@( data-x@( on:y@(");
	/* its own name first; in children, anonymous; part of the value,
	 * anonymous */
	JSX_NAMES("<ul onHover={function hovered() {}}>{xs.map((x) => <li key={x}>{x}</li>)}"
		  "<b f={c ? () => 1 : g} /></ul>",
		  "hovered@( -@( -@(");
	/* fragments, nesting, spread attributes, comments in tags and
	 * containers, member tag names */
	JSX_NAMES("x = <><A {...p} /* c */ b=\"1\" // d\n>{/* none */}<B.C.D/></A></>;\n"
		  "const f = () => <i/>",
		  "f@(");
	/* TypeScript's generic arrows in a .tsx file are no elements */
	JSX_NAMES("const id = <T,>(x: T) => x; const e = <T extends object>(x: T) => x", "id@( e@(");
	/* a '<' taken for an element's start that is none (after a word
	 * that starts an expression, here a property's name; a type's
	 * <T>(x: T) => T): the element never closes, and the text is
	 * tokenized again without JSX */
	JSX_NAMES("if (x.in <y) { z() } function g() {}", "g@(");
	/* x = { function() {} } is an object with a method named function,
	 * no attribute (no markup before it): anonymous here, as without JSX */
	JSX_NAMES("x = { function() {} }; w = { async function() {} }", "-@( -@(");
	/* a generic function's type is no element; an element's type
	 * arguments, a comparison after a non-null assertion, an element
	 * after export default or in a template's substitution */
	JSX_NAMES("type Mapper = <T>(x: T) => T;\nfunction App() { return <p onA={() => go()}>it's</p> }",
		  "App@( onA@(");
	JSX_NAMES("let r = <Radio<Key> onB={(v) => set(v)} />; if (a.i! < b.i!) { f() }\n"
		  "export default <App onC={() => 1}>it's</App>; s = `${<a onD={() => 1}>it's</a>}`",
		  "onB@( onC@( onD@(");
	JSX_NAMES("const b = <b>(note) it's</b>; const f = <T,>(x: T) => x", "f@(");
	/* without JSX (a .ts file), <number>x is a type assertion */
	NAMES("const n = <number>x; function k() {}", "k@(");
	/* not understood either way */
	assert_int_equal(pp_js_tokenize_jsx("f(<a>it's</b>", 13, true, &v, NULL), -1);
	assert_int_equal(pp_js_tokenize_jsx("<a b={1}>it's", 13, true, &v, NULL), -1);
}

static void test_jstoken_sfc(void **state)
{
	(void)state;
	/* a Vue component: its template and style blanked, its scripts'
	 * functions where they are (line 4, "function onClick") */
	static const char sfc[] =
		"<template>\n  <div :title=\"label\" @click=\"onClick\">it's caf\xc3\xa9 {{ n }}</div>\n"
		"</template>\n<script setup lang=\"ts\">\nfunction onClick(): void { n++ }\n"
		"const double = (n: number) => n * 2;\n</script>\n<script>\nexport default { m() {} }\n"
		"</script>\n<style>\ndiv { color: red }\n</style>\n";
	char out[sizeof(sfc)];
	pp_js_sfc_scripts(sfc, sizeof(sfc) - 1, out);
	out[sizeof(sfc) - 1] = '\0';
	assert_string_equal(out,
			    "          \n                                               \xc3\xa9              \n           \n                        \n"
			    "function onClick(): void { n++ }\nconst double = (n: number) => n * 2;\n"
			    "         \n        \nexport default { m() {} }\n         \n       \n"
			    "                  \n        \n");
	NAMES(out, "onClick@( double@( m@(");
	/* an unclosed script runs to the end; none: all blank */
	pp_js_sfc_scripts("<script>f()", 11, out);
	assert_memory_equal(out, "        f()", 11);
	pp_js_sfc_scripts("<scripts>f()", 12, out);
	assert_memory_equal(out, "            ", 12);
	/* a '>' in an attribute's value (Vue's generic components); a
	 * "<script" a comment or a template's text mentions, not first on
	 * its line */
	static const char gen[] = "<!-- in <script> below -->\n<p>a <script> b</p>\n"
				  "<script setup generic=\"T extends R<K, V>\">\nf()\n</script>\n";
	char o2[sizeof(gen)];
	pp_js_sfc_scripts(gen, sizeof(gen) - 1, o2);
	o2[sizeof(gen) - 1] = '\0';
	assert_string_equal(o2, "                          \n                   \n"
				"                                          \nf()\n         \n");
}

static void test_jstoken_lexing(void **state)
{
	struct pp_js_toks v;
	(void)state;
	/* strings, templates, regexes and comments hide their brackets */
	NAMES("const s = \"(\" + '{' + `${ f(() => 1) }` ; /* ( */ // {\n"
	      "const r = /[(]{/g; function g() {}",
	      "-@( g@(");
	NAMES("a = b / c / d; function f() {}", "f@(");
	NAMES("if (x) return /=>/.test(y); function h() {}", "h@(");
	/* what is not understood gives nothing */
	assert_int_equal(pp_js_tokenize("f(\"unterminated", 15, &v), -1);
	assert_int_equal(pp_js_tokenize("/* never ends", 13, &v), -1);
	assert_int_equal(pp_js_tokenize("f(a]", 4, &v), -1);
	assert_int_equal(pp_js_tokenize("`${a", 4, &v), -1);
	assert_int_equal(pp_js_tokenize("{", 1, &v), -1);
	assert_int_equal(pp_js_tokenize("a\x01", 2, &v), -1);
	assert_int_equal(pp_js_tokenize("#!/usr/bin/env node\nf()", 23, &v), 0);
	assert_int_equal(v.n, 3);
	pp_js_toks_release(&v);
}

/* A token keeps its length, kind and partner in 8 bytes: a string of 3
 * MB, a template of as much, a regex after it; a bracket is one byte long
 * and knows its partner, another token has none. */
static void test_jstoken_long_tokens(void **state)
{
	(void)state;
	size_t n = (size_t)3 << 20, len = 2 * n + 32;
	char *s = malloc(len + 1);
	assert_non_null(s);
	size_t at = 0;
	memcpy(s + at, "f(\"", 3);
	at += 3;
	memset(s + at, 'x', n);
	at += n;
	memcpy(s + at, "\", `", 4);
	at += 4;
	memset(s + at, '(', n);
	at += n;
	memcpy(s + at, "`, /a(/g)", 9);
	at += 9;
	struct pp_js_toks v;
	assert_int_equal(pp_js_tokenize(s, at, &v), 0);
	assert_int_equal(sizeof(struct pp_js_tok), 8);
	assert_int_equal(v.n, 8);
	assert_int_equal(pp_js_tok_kind(&v.t[2]), PP_JS_STRING);
	assert_int_equal(pp_js_tok_len(&v.t[2]), n + 2);
	assert_int_equal(pp_js_tok_kind(&v.t[4]), PP_JS_TEMPLATE);
	assert_int_equal(pp_js_tok_len(&v.t[4]), n + 2);
	assert_int_equal(pp_js_tok_kind(&v.t[5]), PP_JS_PUNCT);
	assert_int_equal(pp_js_tok_kind(&v.t[6]), PP_JS_REGEX);
	assert_int_equal(pp_js_tok_match(&v.t[1]), 7);
	assert_int_equal(pp_js_tok_match(&v.t[7]), 1);
	assert_int_equal(pp_js_tok_kind(&v.t[7]), PP_JS_PUNCT);
	assert_int_equal(pp_js_tok_len(&v.t[7]), 1);
	assert_int_equal(pp_js_tok_match(&v.t[2]), UINT32_MAX);
	assert_int_equal(pp_js_tok_match(&v.t[5]), UINT32_MAX);
	pp_js_toks_release(&v);
	free(s);
}

/* Looking back over brackets for "(a): T =>" or a binding's type used to
 * step before the text's first token when the bracket was that token. */
static void test_jstoken_first_bracket(void **state)
{
	(void)state;
	NAMES("[a<] => b", "");
	NAMES("[a] & T = function () {}", "-@(");
	NAMES("(a) & T = function () {}", "-@(");
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	b[n] = '\0';
	*len = (size_t)n;
	return b;
}

static void *prepare_script(void *m)
{
	assert_int_equal(smap_map_prepare_script(m), SMAP_OK);
	return NULL;
}

enum how { PLAIN, PREPARED, EARLY };

/* The names fixture's esbuild bundle (one line) and its map: V8's
 * positions of its functions, as node --cpu-prof recorded them.
 * PREPARED: the map prepared as pprof_symbolicate() does, the script
 * tokenized on a thread while the positions' sources are; EARLY: the
 * script given before the map is read and tokenized on a thread from then
 * on, the positions' sources on two threads (their size aside). */
static void function_at(enum how how)
{
	static const char map[] = SRCDIR "/fixtures/names/esbuild/min/names.js.map";
	size_t len;
	pthread_t th;
	struct smap_map *m = smap_map_new();
	assert_non_null(m);
	if (how != EARLY)
		assert_int_equal(smap_map_load_file(m, map, 0), SMAP_OK);
	char *gen = slurp(SRCDIR "/fixtures/names/esbuild/min/names.js", &len);
	assert_int_equal(smap_map_set_script(m, gen, len), SMAP_OK);
	free(gen);
	if (how == EARLY) {
		assert_int_equal(pthread_create(&th, NULL, prepare_script, m), 0);
		assert_int_equal(smap_map_load_file(m, map, 0), SMAP_OK);
		assert_true(smap_map_source_count(m) >= 2);
	}
	static const struct {
		uint32_t col;
		const char *token, *name;
	} want[] = {
		{569, "P", "asyncChecksum"}, /* P=async n=>  */
		{2215, "", ""},              /* e.map(u=>... an inline callback */
		{910, "m", "Matrix"},        /* var m=class{constructor(e) */
		{1349, "get size", "get size"},
		{1252, "#e", "#transposeSecret"},
		{2060, "f.encodeAll", "registry.encodeAll"},
		/* descriptor.value = function memoized, in function U: V8
		 * says U.r.value too */
		{2706, "U.r.value", "memoized"},
		{820, "", "scaled"}, /* return function scaled, made anonymous */
		{2404, "S", "norm"}, /* the second file's norm */
	};
	if (how != PLAIN) {
		enum { NW = sizeof(want) / sizeof(want[0]) };
		uint32_t lines[NW] = {0}, cols[NW];
		for (size_t i = 0; i < NW; i++)
			cols[i] = want[i].col;
		assert_int_equal(smap_map_prepare(m), SMAP_OK);
		if (how == PREPARED)
			assert_int_equal(pthread_create(&th, NULL, prepare_script, m), 0);
		size_t saved = pp_smap_jobs_min;
		if (how == EARLY)
			pp_smap_jobs_min = 0;
		assert_int_equal(smap_map_prepare_functions(m, lines, cols, NW), SMAP_OK);
		pp_smap_jobs_min = saved;
		assert_int_equal(smap_map_generated_lines(m), 1);
		pthread_join(th, NULL);
		/* the sources decoded on either thread, as a map not prepared
		 * decodes them */
		struct smap_map *r = smap_map_new();
		assert_non_null(r);
		assert_int_equal(smap_map_load_file(r, map, 0), SMAP_OK);
		assert_int_equal(smap_map_source_count(r), smap_map_source_count(m));
		for (size_t i = 0; i < smap_map_source_count(m); i++) {
			size_t lm, lr;
			const char *cm = smap_map_source_content(m, i, &lm);
			const char *cr = smap_map_source_content(r, i, &lr);
			assert_true(!cm == !cr);
			if (cm) {
				assert_int_equal(lm, lr);
				assert_memory_equal(cm, cr, lm);
			}
		}
		smap_map_free(r);
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct smap_function f;
		assert_int_equal(smap_function_at(m, 0, want[i].col, &f), SMAP_OK);
		assert_int_equal(f.start, 1);
		assert_int_equal(f.mapped, 1);
		assert_non_null(f.token);
		assert_string_equal(f.token, want[i].token);
		assert_non_null(f.name);
		assert_string_equal(f.name, want[i].name);
	}
	struct smap_function f;
	assert_int_equal(smap_function_at(m, 0, 571, &f), SMAP_OK); /* not a start */
	assert_int_equal(f.start, 0);
	assert_int_equal(smap_map_generated_lines(m), 1);
	smap_map_free(m);
}

/* Every walk from byte A to byte B of TEXT, and the marks of its tokens,
 * equal the reference walk. */
static void check_walks(const char *text, size_t len)
{
	for (size_t a = 0; a <= len; a++) {
		struct pp_js_walk r0 = {0, 0, 0};
		walk_ref(text, len, a, &r0);
		for (size_t b = a; b <= len; b++) {
			struct pp_js_walk w = r0, r = r0;
			pp_js_walk_to(text, len, b, &w);
			walk_ref(text, len, b, &r);
			assert_int_equal(w.at, r.at);
			assert_int_equal(w.line, r.line);
			assert_int_equal(w.col, r.col);
		}
	}
	struct pp_js_toks v;
	if (pp_js_tokenize(text, len, &v) != 0)
		return;
	struct pp_js_walk *mk = malloc((v.n + 1) * sizeof(*mk));
	assert_non_null(mk);
	for (size_t step = 1; step <= 3; step++) {
		pp_js_walk_marks(text, len, v.t, v.n, step, mk);
		struct pp_js_walk r = {0, 0, 0};
		for (size_t i = 0; i < v.n; i += step) {
			walk_ref(text, len, v.t[i].off, &r);
			assert_int_equal(mk[i / step].at, r.at);
			assert_int_equal(mk[i / step].line, r.line);
			assert_int_equal(mk[i / step].col, r.col);
		}
	}
	free(mk);
	pp_js_toks_release(&v);
}

static void test_jstoken_walk(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"",
		"a",
		/* runs of plain ASCII longer than 16 and 8 bytes, line ends
		 * inside them, at their ends and just past */
		"function averyveryverylongname(alpha,beta){return alpha+beta}\n"
		"const b=1;\nlet c=2;\n\n\nvar d = 'sixteen bytes!!' ;\n",
		"x\r\ny\rz\n\r\nw = 1 ; /* a comment\r\nover lines */ q",
		"s = \"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 done\"; t = 1234567890123;",
		"a\xe2\x80\xa8"
		"b\xe2\x80\xa9"
		"c = `line\nline ${x} \xe2\x80\xa8 end`;",
		/* a lead byte whose sequence runs past a token's start, and one
		 * at the very end */
		"ab\xf0"
		"cdefghijklmnopqrstuvwxyz0123456789\xe0",
		"          \n          \n          \r          \n 1234567890123456x",
	};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		check_walks(texts[i], strlen(texts[i]));
	/* a longer text: every byte class around every chunk boundary */
	char big[300];
	static const char pick[] = "abc \n\r\xc3\xa9\xe2\x80\xa8\xf0;=(){}";
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof(big); i++) {
		x = x * 1103515245u + 12345u;
		big[i] = pick[(x >> 16) % (sizeof(pick) - 1)];
	}
	check_walks(big, sizeof(big));
}

static void test_jstoken_function_at(void **state)
{
	(void)state;
	function_at(PLAIN);
}

static void test_jstoken_function_at_prepared(void **state)
{
	(void)state;
	function_at(PREPARED);
}

static void test_jstoken_function_at_early(void **state)
{
	(void)state;
	function_at(EARLY);
}

/* A callee inlined into its caller (terser's isValid holding isDate's
 * body): the body's mapped tokens vote for the callee, four to two; the
 * parameter, the function's own, maps into the caller's, which is the
 * function. */
static void test_jstoken_function_at_inlined(void **state)
{
	(void)state;
	static const char map[] =
		"{\"version\":3,\"sources\":[\"a.js\"],\"names\":[\"isValid\"],"
		"\"sourcesContent\":[\"function isDate(v) { return v instanceof Date; }\\n"
		"function isValid(d) { return !isDate(d) || d > 0; }\\n\"],"
		"\"mappings\":\"AACA,SAASA,EAAQ,GAAK,SADM,EAAA,EAAE,WAAW,OACE\"}";
	static const char gen[] = "function v(t){return!((n=t)instanceof Date)||t>0}";
	struct smap_map *m = smap_map_new();
	assert_non_null(m);
	assert_int_equal(smap_map_parse(m, map, sizeof(map) - 1, 0), SMAP_OK);
	assert_int_equal(smap_map_set_script(m, gen, sizeof(gen) - 1), SMAP_OK);
	struct smap_function f;
	assert_int_equal(smap_function_at(m, 0, 10, &f), SMAP_OK);
	assert_int_equal(f.start, 1);
	assert_non_null(f.name);
	assert_string_equal(f.name, "isValid");
	smap_map_free(m);
}

/* MAP parsed, with SCRIPT (or NULL) as its generated script. */
static struct smap_map *map_with(const char *map, const char *script)
{
	struct smap_map *m = smap_map_new();
	assert_non_null(m);
	assert_int_equal(smap_map_parse(m, map, strlen(map), 0), SMAP_OK);
	if (script)
		assert_int_equal(smap_map_set_script(m, script, strlen(script)), SMAP_OK);
	return m;
}

/* What smap_function_at() says of 0:COL of M: START, and NAME (NULL:
 * none); where the name came from. */
static int function_is(struct smap_map *m, uint32_t col, int start, const char *name)
{
	struct smap_function f;
	assert_int_equal(smap_function_at(m, 0, col, &f), SMAP_OK);
	assert_int_equal(f.start, start);
	if (!name) {
		assert_null(f.name);
		return f.from;
	}
	assert_non_null(f.name);
	assert_string_equal(f.name, name);
	return f.from;
}

/* Without a source text, a.b=function(e){return e} is named by the map's
 * names at its binding when the body's first mapped token lies at most 16
 * lines below the naming token (parameter defaults a compiler lowered into
 * the body, which a minifier dropped, come between), or when the head
 * ("function") maps right after it, wherever the body is (a long comment
 * before the first statement); not when both lie 20 lines below (the
 * function of a declaration there, inlined at the binding). */
static void test_jstoken_function_at_name_to_body(void **state)
{
	(void)state;
	static const char script[] = "a.b=function(e){return e}";
	struct smap_map *m = map_with("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[\"pp\"],"
				      "\"mappings\":\"AAAAA,EAAG,EAAI,QAAS,CAAC,GAMf,OAAO\"}",
				      script);
	assert_int_equal(function_is(m, 12, 1, "pp.b"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	m = map_with("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[\"pp\"],"
		     "\"mappings\":\"AAAAA,EAAG,EAAI,QAAS,CAAC,GAoBf,OAAO\"}",
		     script);
	assert_int_equal(function_is(m, 12, 1, "pp.b"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	m = map_with("{\"version\":3,\"sources\":[\"a.js\"],\"names\":[\"pp\"],"
		     "\"mappings\":\"AAAAA,EAAG,EAoBH,QAAc,CAAC,GACb,OAAO\"}",
		     script);
	function_is(m, 12, 1, NULL);
	smap_map_free(m);
}

/* esbuild's --keep-names (wrangler's default) gives each function to its
 * helper with its name, o(()=>{...},"execEditLength"), and V8 calls the
 * arrow anonymous: without a source text, the string names it, and only
 * where the helper is esbuild's (o = (e, t) => d(e, "name", { value: t,
 * configurable })). */
static void test_jstoken_function_at_keep_names(void **state)
{
	(void)state;
	struct smap_map *m = map_with("{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[],"
				      "\"mappings\":\"AAAA,2DACuB,KACrB\"}",
				      "var o=(e,t)=>d(e,\"name\",{value:t,configurable:!0});"
				      "let f=o(()=>{x()},\"execEditLength\");");
	assert_int_equal(function_is(m, 59, 1, "execEditLength"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* a helper that sets another property: anonymous */
	m = map_with("{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[],"
		     "\"mappings\":\"AAAA,yDACuB,KACrB\"}",
		     "var o=(e,t)=>d(e,\"id\",{value:t,configurable:!0});"
		     "let f=o(()=>{x()},\"execEditLength\");");
	function_is(m, 57, 1, "");
	smap_map_free(m);
}

/* A class's method its library's compiler lowered to ES5 (the map leads
 * to the class): V8 says Obs.sub for t.prototype.sub = function, t mapped
 * to the class's name; t mapped to another name keeps the method's.  The
 * same for a class field moved into the constructor (this.sub =). */
static void test_jstoken_function_at_es5_method(void **state)
{
	(void)state;
	static const struct {
		const char *script, *source, *mappings;
		uint32_t col; /* V8's position: the '(' */
	} cases[] = {
		{"t.prototype.sub=function(a){return a};",
		 "class Obs {\\n  sub(a) { return a; }\\n}\\n",
		 "AACEA,YAAA,IAAA,QAAG,CAAC,GAAK,OAAO", 24},
		/* in the constructor of t, t mapped to the class's name */
		{"class t{constructor(){this.sub=(a)=>a}}",
		 "class Obs {\\n  sub = (a) => a;\\n}\\n", "MAAMA,gBACJ,KAAA,IAAM,CAAC,IAAM", 31},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int other = 0; other < 2; other++) {
			char map[512];
			snprintf(map, sizeof(map),
				 "{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[\"%s\"],"
				 "\"sourcesContent\":[\"%s\"],\"mappings\":\"%s\"}",
				 other ? "Other" : "Obs", cases[i].source, cases[i].mappings);
			struct smap_map *m = map_with(map, cases[i].script);
			assert_int_equal(function_is(m, cases[i].col, 1, other ? "sub" : "Obs.sub"),
					 SMAP_FROM_SCRIPT);
			smap_map_free(m);
		}
}

/* terser maps a function in parentheses (x || (function () {})) to the
 * first '(': a function starts there, and with the script the map is
 * said to agree (without it, START says so).  V8 on
 * the source says (anonymous) (test_jstoken_operand_keys). */
static void test_jstoken_function_at_parenthesized(void **state)
{
	(void)state;
	static const char map[] = "{\"version\":3,\"sources\":[\"g.js\"],\"names\":[\"w1\","
				  "\"F\",\"a\"],\"sourcesContent\":[\"var w1 = F || (function (a) "
				  "{ return a; });\\nw1(1); w1(2);\\n\"],\"mappings\":\"AAAA,IAAIA,"
				  "GAAKC,GAAK,SAAWC,GAAK,OAAOA,CAAI,EACzCF,GAAG,GAAIA,GAAG\"}";
	static const char script[] = "var w1=F||function(n){return n};w1(1),w1(2);";
	for (int with = 0; with < 2; with++) {
		struct smap_map *m = map_with(map, with ? script : NULL);
		struct smap_function f;
		assert_int_equal(smap_function_at(m, 0, 18, &f), SMAP_OK);
		assert_int_equal(f.start, 1);
		assert_int_equal(f.mapped, with ? 1 : -1);
		assert_true(!f.name || !*f.name || strcmp(f.name, "(anonymous)") == 0);
		smap_map_free(m);
	}
}

/* A class without a constructor of its own: V8 puts its default
 * constructor on the "class" keyword, where no function starts, and names
 * it by the class; the map points at the "export" before "class Foo"
 * (vite's do).  With the script, only V8's position on a "class" keyword
 * is named so; an anonymous class has no name to give. */
static void test_jstoken_function_at_default_ctor(void **state)
{
	(void)state;
	static const char map[] = "{\"version\":3,\"sources\":[\"p.ts\"],\"names\":[],"
				  "\"sourcesContent\":[\"import { Y } from \\\"./y\\\";\\n"
				  "export class Foo extends Y {\\n  m() { return 1 }\\n}\\n\"],"
				  "\"mappings\":\"OACA,gBACE\"}";
	static const char anon[] =
		"{\"version\":3,\"sources\":[\"p.ts\"],\"names\":[],"
		"\"sourcesContent\":[\"export default class extends Y {\\n  m() { return 1 }\\n}\\n\"],"
		"\"mappings\":\"OAAA,gBACE\"}";
	static const char gen[] = "var sv=class extends Y{m(){return 1}};";
	for (int script = 0; script < 2; script++) {
		struct smap_map *m = map_with(map, script ? gen : NULL);
		assert_int_equal(function_is(m, 7, -1, "Foo"), SMAP_FROM_SOURCE);
		function_is(m, 24, 1, "m");
		smap_map_free(m);
		/* export default class: V8 names it "default" */
		m = map_with(anon, script ? gen : NULL);
		assert_int_equal(function_is(m, 7, -1, "default"), SMAP_FROM_SOURCE);
		smap_map_free(m);
	}
	/* a mixin's anonymous class, which terser put in a binding's
	 * sequence (V8 infers "o" from it): anonymous, as in the source */
	static const char mixin[] =
		"{\"version\":3,\"sources\":[\"x.ts\"],\"names\":[],"
		"\"sourcesContent\":[\"export const Mix = (B) =>\\n  class extends B {\\n"
		"    m() { return 1 }\\n  };\\n\"],\"mappings\":\"aACE,gBACE,CAAC\"}";
	struct smap_map *m = map_with(mixin, "const o=(u=l,class extends u{m(){return 1}});");
	assert_int_equal(function_is(m, 13, -1, ""), SMAP_FROM_SOURCE);
	smap_map_free(m);
	/* a map that puts the "class" keyword a column off (tsc, rollup
	 * and terser chained): the class's name maps to the original's */
	static const char off[] =
		"{\"version\":3,\"sources\":[\"u.ts\"],\"names\":[],"
		"\"sourcesContent\":[\"export class User extends E {\\n  m() { return 1 }\\n}\\n\"],"
		"\"mappings\":\"CAAM,MAAO,YACX,CAAC\"}";
	m = map_with(off, ";class l extends s{m(){return 1}}");
	assert_int_equal(function_is(m, 1, -1, "User"), SMAP_FROM_SOURCE);
	smap_map_free(m);
	/* at 0:0, V8's top level of the script is not named by a class
	 * there, nor is a class with a constructor of its own */
	m = map_with(off, "class l extends s{m(){return 1}}");
	function_is(m, 0, -1, NULL);
	smap_map_free(m);
	m = map_with(off, ";class l extends s{constructor(){super()}}");
	function_is(m, 1, -1, NULL);
	smap_map_free(m);
	/* without the source: the map's name at the class's name, but
	 * esbuild's var User = class _User names both the original's one
	 * token, the binding by the original's name */
	static const char renamed[] = "{\"version\":3,\"sources\":[\"u.ts\"],"
				      "\"names\":[\"User\",\"_User\"],"
				      "\"mappings\":\"IAAaA,EAAN,MAAMC,YACX\"}";
	m = map_with(renamed, "var l=class n extends b{m(){return 1}};");
	assert_int_equal(function_is(m, 6, -1, "User"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* swc's User = class e: the binding's own text, not renamed */
	static const char swc[] = "{\"version\":3,\"sources\":[\"u.ts\"],\"names\":[],"
				  "\"mappings\":\"AAAa,KAAN,MAAM,YACX\"}";
	m = map_with(swc, "User=class e extends b{m(){return 1}};");
	assert_int_equal(function_is(m, 5, -1, "User"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* without the source, a computed key's member of a class
	 * expression: named by the binding, the map's name at it */
	static const char computed[] = "{\"version\":3,\"sources\":[\"q.ts\"],"
				       "\"names\":[\"Square\"],"
				       "\"mappings\":\"IAAMA,EAAS,MACb,kBAAmB,GAAK\"}";
	m = map_with(computed, "var l=class{*[Symbol.iterator](){return 1}};");
	assert_int_equal(function_is(m, 30, 1, "Square"), SMAP_FROM_SCRIPT);
	smap_map_free(m);

	/* a script whose position is no "class" keyword (the "=" before
	 * it): not a function start, not named, though the map points there */
	m = map_with(map, "var sv =class extends Y{m(){return 1}};");
	function_is(m, 7, 0, NULL);
	smap_map_free(m);
}

/* Functions in an array literal: V8 names an element by the array's
 * binding, a named function expression by its own name.  The arrow's head
 * with its binding does not hold the function before it. */
static void test_jstoken_function_at_array(void **state)
{
	(void)state;
	static const char map[] =
		"{\"version\":3,\"sources\":[\"s.ts\"],\"names\":[],"
		"\"sourcesContent\":[\"export const mw = [\\n  function logger(a, next) {\\n"
		"    return 1;\\n  },\\n  (a, next) => {\\n    return 2;\\n  },\\n];\\n\"],"
		"\"mappings\":\"AAAA,QAAa,IACX,SAAgB,EAAG,GACjB,UAEF,CAAC,EAAG,KACF\"}";
	struct smap_map *m =
		map_with(map, "exports.mw=[function(e,r){return 1},(e,r)=>{return 2}];");
	assert_int_equal(function_is(m, 20, 1, "logger"), SMAP_FROM_SOURCE);
	assert_int_equal(function_is(m, 36, 1, "mw"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
}

/* Without the source: a function a minifier inlined at its one call
 * (!function(){…}() for main();) is named by the call's '(', which maps
 * to that call, not when the '(' calls what the function was passed to;
 * exports.f = function with its binding not mapped (terser's output of
 * tsc's CommonJS) is f. */
static void test_jstoken_function_at_nosc(void **state)
{
	(void)state;
	static const char iife[] = "{\"version\":3,\"sources\":[\"m.ts\"],\"names\":[\"main\"],"
				   "\"mappings\":\"CAAA,WACE,SAEFA\"}";
	struct smap_map *m = map_with(iife, "!function(){return 1}();");
	assert_int_equal(function_is(m, 9, 1, "main"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	static const char arg[] = "{\"version\":3,\"sources\":[\"m.ts\"],\"names\":[\"main\"],"
				  "\"mappings\":\"AAGA,IAHA,WACE,UAEEA\"}";
	m = map_with(arg, "foo(function(){return 1})(x);");
	assert_int_equal(function_is(m, 12, 1, ""), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	static const char exp[] = "{\"version\":3,\"sources\":[\"m.ts\"],\"names\":[],"
				  "\"mappings\":\"UAAO,SAAW,GAChB\"}";
	m = map_with(exp, "exports.f=function(e){return e};");
	assert_int_equal(function_is(m, 18, 1, "f"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* a CommonJS source's exports.f is V8's own name: kept */
	static const char cjs[] = "{\"version\":3,\"sources\":[\"m.js\"],\"names\":[],"
				  "\"mappings\":\"UAAO,SAAW,GAChB\"}";
	m = map_with(cjs, "exports.f=function(e){return e};");
	function_is(m, 18, 1, NULL);
	smap_map_free(m);
	/* a function inlined in the body (inner in outer, terser): its
	 * "function" keyword is not the body's first mapped token, which
	 * the naming token must precede */
	static const char nest[] = "{\"version\":3,\"sources\":[\"g.ts\"],\"names\":[\"outer\"],"
				   "\"mappings\":\"AAKA,SAAUA,WAJV,aACE,aAIA\"}";
	m = map_with(nest, "function*h(t){yield*function*(t){return 1}(t);return 2}");
	assert_int_equal(function_is(m, 10, 1, "outer"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* {format = (n) => ...} written {format:t=e=>...} with a segment
	 * at the key and none at the binding t (Vite's): the key's name */
	static const char pat[] = "{\"version\":3,\"sources\":[\"d.ts\"],\"names\":[\"format\"],"
				  "\"mappings\":\"AAAA,IACEA,SAAU,IACV,SAFF\"}";
	m = map_with(pat, "let{format:t=e=>{return e}}=o;");
	assert_int_equal(function_is(m, 13, 1, "format"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* terser's map of lib.Index.prototype.query = function (fn) {, its
	 * first statement after 18 lines of comment: the head maps right
	 * after the binding, which names it (lunr's, as V8 names it) */
	static const char far[] =
		"{\"version\":3,\"names\":[\"lib\",\"Index\",\"prototype\","
		"\"query\",\"fn\"],\"sources\":[\"s.js\"],\"mappings\":\"AAAA,IAAIA,"
		"EAAM,CACVA,MAAY,WAAa,GACzBA,EAAIC,MAAMC,UAAUC,MAAQ,SAAUC,GAmBpC,OAAOA,EAAG,"
		"EACZ\"}";
	m = map_with(far,
		     "var n={Index:function(){}};n.Index.prototype.query=function(n){return n(1)};");
	assert_int_equal(function_is(m, 59, 1, "lib.Index.query"), SMAP_FROM_SCRIPT);
	smap_map_free(m);
	/* exports.parse = parse; and function parse 20 lines below, inlined
	 * there by terser: its head maps to the declaration, whose name the
	 * map does not have; V8's own kept */
	static const char inl[] =
		"{\"version\":3,\"names\":[\"exports\",\"parse\",\"src\"],"
		"\"sources\":[\"s.js\"],\"mappings\":\"AAAAA,QAAQC,MAmBR,SAAeC,GACb,"
		"OAAOA,EAAM,CACf\"}";
	m = map_with(inl, "exports.parse=function(r){return r+1};");
	function_is(m, 22, 1, NULL);
	smap_map_free(m);
}

/* A function among a JSX element's children (esbuild's output of
 * <C>{(v: number) => v + 1}</C> and <D>{"it's"}{function () {...}}</D>):
 * children where the script makes the child that property (React's
 * automatic runtime: jsx(C, {children: n => n + 1}), as V8 names it
 * there), anonymous where the children are arguments (h(C, null, t => t +
 * 1)).  (Several children are an array, children: ["it's", function],
 * whose functions V8 names and the finder leaves anonymous, as any in an
 * array that is a property's value.) */
static void test_jstoken_function_at_jsx_child(void **state)
{
	(void)state;
	static const char src[] =
		"\"sourcesContent\":[\"export const A = () => <C>{(v: number) => v + 1}</C>;\\n"
		"export const B = () => <D>{\\\"it's\\\"}{function () { return 2 }}</D>;\\n\"],";
	static const char automatic[] =
		"import{jsx as o,jsxs as t}from\"react/jsx-runtime\";const r=()=>o(C,{children:n=>n+1}),"
		"c=()=>t(D,{children:[\"it's\",function(){return 2}]});export{r as A,c as B};";
	static const char transform[] = "const n=()=>h(C,null,t=>t+1),o=()=>h(D,null,\"it's\","
					"function(){return 2});export{n as A,o as B};";
	char map[1024];
	snprintf(map, sizeof(map), "{\"version\":3,\"sources\":[\"a.tsx\"],%s%s", src,
		 "\"mappings\":\"AAAuB,cAAAA,EACA,QAAAC,MADA,oBAAhB,MAAMC,EAAI,IAAMF,EAAC,GAAG,"
		 "SAACG,GAAcA,EAAI,EAAE,EACnCC,EAAI,IAAMH,EAAC,GAAG,iBAAQ,UAAY,CAAE,MAAO,EAAE,GAAE\","
		 "\"names\":[\"jsx\",\"jsxs\",\"A\",\"v\",\"B\"]}");
	struct smap_map *m = map_with(map, automatic);
	function_is(m, 76, 1, "children");
	smap_map_free(m);
	snprintf(map, sizeof(map), "{\"version\":3,\"sources\":[\"a.tsx\"],%s%s", src,
		 "\"mappings\":\"AAAO,MAAMA,EAAI,IAAM,EAAC,OAAIC,GAAcA,EAAI,CAAE,EACnCC,EAAI,IAAM,"
		 "EAAC,OAAG,OAAQ,UAAY,CAAE,MAAO,EAAE,CAAE\",\"names\":[\"A\",\"v\",\"B\"]}");
	m = map_with(map, transform);
	function_is(m, 21, 1, "");
	function_is(m, 59, 1, "");
	smap_map_free(m);
}

/* A function Solid made of JSX (babel-preset-solid, then esbuild):
 * Solid's compiler makes no object of the attributes (el.$$click = () =>,
 * el.addEventListener("scroll", e => ...)) and wraps the element in a
 * function of its own, whose position maps into the markup.  The
 * attribute's name is taken only where the script makes it the key
 * (render:), and the wrapper is not named by the component around it:
 * named as without the source (V8: anonymous, anonymous, render, get
 * label). */
static void test_jstoken_function_at_solid(void **state)
{
	(void)state;
	static const char script[] =
		"function o(){return()=>({firstChild:{addEventListener(e,t){this.f=t}}})}functi"
		"on l(e,t){return e(t)}function r(e){let t=Date.now()+e,n=0;for(;Date.now()<t;)"
		"n+=Math.sqrt(n+1);return n}var m=o(\"<div><button>+\"),s=o(\"<i>c\");function "
		"a(e){return r(2),(()=>{var t=m(),n=t.firstChild;return n.addEventListener(\"sc"
		"roll\",i=>{r(3)}),n.$$click=()=>{r(3)},l(u,{render:i=>(r(3),i),get label(){ret"
		"urn r(2)+e.n}}),t})()}function u(e){return r(1),e.render(1),e.label,s()}for(le"
		"t e=0;e<30;e++){let t=a({});t.firstChild.$$click(),t.firstChild.f(1)}";
	static const char map[] =
		"{\"version\":3,\"sources\":[\"../src/stub.js\",\"../src/spin.ts\",\"../src/app"
		".jsx\",\"../src/main.js\"],\"sourcesContent\":[\"export function template() { "
		"return () => ({ firstChild: { addEventListener(e, f) { this.f = f; } } }); }\\"
		"nexport function delegateEvents() {}\\nexport function insert() {}\\nexport fu"
		"nction createComponent(C, p) { return C(p); }\\n\",\"export function spin(ms: "
		"number): number {\\n  const end = Date.now() + ms;\\n  let x = 0;\\n  while (D"
		"ate.now() < end) x += Math.sqrt(x + 1);\\n  return x;\\n}\\n\",\"import { spin"
		" } from \\\"./spin\\\";\\nexport function Counter(props) {\\n  spin(2);\\n  re"
		"turn <div>\\n    <button onClick={() => { spin(3); }} onScroll={(e) => { spin("
		"3); }}>+</button>\\n    <Child render={(x) => { spin(3); return x; }} label={s"
		"pin(2) + props.n} />\\n  </div>;\\n}\\nfunction Child(props) { spin(1); props."
		"render(1); props.label; return <i>c</i>; }\\n\",\"import { Counter } from \\\""
		"./app.js\\\";\\nfor (let i = 0; i < 30; i++) { const el = Counter({}); el.firs"
		"tChild.$$click(); el.firstChild.f(1); }\\n\"],\"mappings\":\"AAAO,SAASA,GAAW,C"
		"AAE,MAAO,KAAO,CAAE,WAAY,CAAE,iBAAiB,EAAGC,EAAG,CAAE,KAAK,EAAIA,CAAG,CAAE,CAAE,"
		"EAAI,CAGjG,SAASC,EAAgBC,EAAGC,EAAG,CAAE,OAAOD,EAAEC,CAAC,CAAG,CCH9C,SAASC,EAAK"
		"C,EAAoB,CACvC,IAAMC,EAAM,KAAK,IAAI,EAAID,EACrBE,EAAI,EACR,KAAO,KAAK,IAAI,EAAID"
		",GAAKC,GAAK,KAAK,KAAKA,EAAI,CAAC,EAC7C,OAAOA,CACT,uCCJO,SAASC,EAAQC,EAAO,CAC7B"
		"C,OAAAA,EAAK,CAAC,GACN,IAAA,CAAA,IAAAC,EAAAC,EAAA,EAAAC,EAAAF,EAAAG,WAAAD,OAAA"
		"A,EAAAE,iBAAA,SACkDC,GAAM,CAAEN,EAAK,CAAC,CAAG,CAAC,EAAAG,EAAAI,QAAjD,IAAM,CAA"
		"EP,EAAK,CAAC,CAAG,EAACQ,EAClCC,EAAK,CAACC,OAASC,IAAQX,EAAK,CAAC,EAAUW,GAAI,IAA"
		"EC,OAAK,CAAA,OAAEZ,EAAK,CAAC,EAAID,EAAMc,CAAC,CAAA,CAAA,EAAAZ,CAAA,GAAA,CAE1E,"
		"CACA,SAASQ,EAAMV,EAAO,CAAEC,OAAAA,EAAK,CAAC,EAAGD,EAAMW,OAAO,CAAC,EAAGX,EAAMa,"
		"MAAOE,EAAA,CAAiB,CCPhF,QAASC,EAAI,EAAGA,EAAI,GAAIA,IAAK,CAAE,IAAMC,EAAKC,EAAQ,"
		"CAAC,CAAC,EAAGD,EAAG,WAAW,QAAQ,EAAGA,EAAG,WAAW,EAAE,CAAC,CAAG\",\"names\":[\"t"
		"emplate\",\"f\",\"createComponent\",\"C\",\"p\",\"spin\",\"ms\",\"end\",\"x\","
		"\"Counter\",\"props\",\"spin\",\"_el$\",\"_tmpl$\",\"_el$2\",\"firstChild\",\""
		"addEventListener\",\"e\",\"$$click\",\"_$createComponent\",\"Child\",\"render\""
		",\"x\",\"label\",\"n\",\"_tmpl$2\",\"i\",\"el\",\"Counter\"]}";
	struct smap_map *m = map_with(map, script);
	function_is(m, 248, 1, "");
	function_is(m, 313, 1, "");
	function_is(m, 357, 1, "render");
	function_is(m, 378, 1, "get label");
	smap_map_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jstoken_declarations),
		cmocka_unit_test(test_jstoken_return_types),
		cmocka_unit_test(test_jstoken_expressions),
		cmocka_unit_test(test_jstoken_objects),
		cmocka_unit_test(test_jstoken_classes),
		cmocka_unit_test(test_jstoken_class_names),
		cmocka_unit_test(test_jstoken_inferrer_stack),
		cmocka_unit_test(test_jstoken_array_keys),
		cmocka_unit_test(test_jstoken_operand_keys),
		cmocka_unit_test(test_jstoken_lexing),
		cmocka_unit_test(test_jstoken_long_tokens),
		cmocka_unit_test(test_jstoken_first_bracket),
		cmocka_unit_test(test_jstoken_walk),
		cmocka_unit_test(test_jstoken_function_at),
		cmocka_unit_test(test_jstoken_function_at_prepared),
		cmocka_unit_test(test_jstoken_function_at_early),
		cmocka_unit_test(test_jstoken_function_at_inlined),
		cmocka_unit_test(test_jstoken_function_at_default_ctor),
		cmocka_unit_test(test_jstoken_function_at_array),
		cmocka_unit_test(test_jstoken_function_at_nosc),
		cmocka_unit_test(test_jstoken_function_at_jsx_child),
		cmocka_unit_test(test_jstoken_function_at_solid),
		cmocka_unit_test(test_jstoken_function_at_name_to_body),
		cmocka_unit_test(test_jstoken_function_at_keep_names),
		cmocka_unit_test(test_jstoken_function_at_es5_method),
		cmocka_unit_test(test_jstoken_function_at_parenthesized),
		cmocka_unit_test(test_jstoken_long_name),
		cmocka_unit_test(test_jstoken_jsx),
		cmocka_unit_test(test_jstoken_sfc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
