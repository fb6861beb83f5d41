// flame_script.js: the interaction of pprof-flame's SVG flame graphs.
//
// Embedded in every SVG (the build turns it into a C string, dropping
// indentation and comment lines), so it must not contain the character
// sequence that ends a CDATA section, nor two question marks in a row
// (C trigraphs).  It reads everything it needs from the document: the
// drawing parameters are attributes of <g id="frames">, and each frame is a
// <g> holding <title>, <rect> and an optional <text>, with its exact start
// in samples in the "s" attribute (absent when 0) and its exact width in
// "w" (absent when the title's count is exact).
//
// Zoom and search work on those exact sample values, never on the rounded
// pixel positions, so zooming into a frame a tenth of a pixel wide still
// lays its callees out exactly.  The matched percentage counts the drawn
// frames of the current view by their exact sample values.
"use strict";
(function () {
	var doc = document;
	var svgns = "http://www.w3.org/2000/svg";
	// The chart is the <svg> holding this script: the document, or one of
	// the charts stacked in it (one per thread), each with the same ids
	// and its own copy of the script.
	var cur = doc.currentScript;
	var host = cur && cur.parentNode && cur.parentNode.querySelector ? cur.parentNode : doc.documentElement;
	function byId(id) {
		return host.querySelector("[id=\"" + id + "\"]");
	}
	var framesEl = byId("frames");
	var details = byId("details");
	var axisEl = byId("axis");
	var unzoomBtn = byId("unzoom");
	var searchBtn = byId("search");
	var icBtn = byId("ignorecase");
	var matchedEl = byId("matched");
	if (!framesEl)
		return;
	// The URL keys of a stacked chart after the first end in its number.
	var sfx = framesEl.getAttribute("chart") || "";
	// The keys act on the chart the pointer was last over (the first one
	// until then).
	if (!window.flameActive)
		window.flameActive = host;

	function num(name, dflt) {
		var v = framesEl.getAttribute(name);
		return v === null || v === "" ? dflt : parseFloat(v);
	}
	var cfg = {
		total: num("total", 0),
		xpad: num("xpad", 10),
		width: num("imagewidth", 1200),
		fh: num("frameheight", 16),
		y0: num("y0", 0),
		inverted: num("inverted", 0) === 1,
		fontsize: num("fontsize", 12),
		fontwidth: num("fontwidth", 0.59),
		factor: num("factor", 1),
		nametype: framesEl.getAttribute("nametype") || "Function:",
		countname: framesEl.getAttribute("countname") || "samples"
	};
	var fullw = cfg.width - 2 * cfg.xpad;

	function escapeRe(s) {
		return s.replace(/[.*+\[\](){}^$|\\]/g, "\\$&").replace(/[?]/g, "\\x3f");
	}
	// The name is the title without its " (N samples, P%...)" tail; with
	// tails="free" (units, before and after) without its last "(...)", and
	// every frame has its "w".
	var tailRe = framesEl.getAttribute("tails") === "free" ? / \(()[^()]*\)$/ :
		new RegExp(" \\(([-0-9,.]+) " + escapeRe(cfg.countname) + ", [^()]*\\)$");

	// One entry per frame, in document order.
	var F = [];
	var kids = framesEl.children;
	for (var i = 0; i < kids.length; i++) {
		var g = kids[i];
		var title = null, rect = null, text = null;
		for (var c = g.firstElementChild; c; c = c.nextElementSibling) {
			if (c.localName === "title") title = c;
			else if (c.localName === "rect") rect = c;
			else if (c.localName === "text") text = c;
		}
		if (!title || !rect)
			continue;
		var t = title.textContent;
		var m = tailRe.exec(t);
		var name = m ? t.substring(0, m.index) : t;
		var w = g.getAttribute("w");
		if (w !== null)
			w = parseFloat(w);
		else if (m)
			w = parseFloat(m[1].replace(/,/g, "")) / cfg.factor;
		else
			w = parseFloat(rect.getAttribute("width")) / fullw * cfg.total;
		var s = g.getAttribute("s");
		s = s === null ? 0 : parseFloat(s);
		var y = parseFloat(rect.getAttribute("y"));
		var depth = Math.round(cfg.inverted ? (y - cfg.y0) / cfg.fh : (cfg.y0 - y) / cfg.fh);
		F.push({
			g: g, rect: rect, text: text, name: name, title: t,
			s: s, w: w, depth: depth,
			x0: rect.getAttribute("x"), w0: rect.getAttribute("width"),
			label0: text ? text.textContent : ""
		});
		g.__fi = F.length - 1;
	}
	if (F.length === 0)
		return;
	// The root is the widest, shallowest frame.
	var root = 0;
	for (i = 1; i < F.length; i++)
		if (F[i].depth < F[root].depth || (F[i].depth === F[root].depth && F[i].w > F[root].w))
			root = i;

	var zoomed = -1;    // index of the zoomed frame, or -1
	var term = null;    // current search, or null
	var ignorecase = false;

	// ---- labels: as many characters as fit, the last two turned to ".." ----
	var charw = cfg.fontsize * cfg.fontwidth;
	function label(f, px) {
		var chars = Math.floor(px / charw);
		if (chars < 3)
			return "";
		// A name has no more characters than UTF-16 units.
		if (chars >= f.name.length)
			return f.name;
		var cp = Array.from(f.name);
		if (chars >= cp.length)
			return f.name;
		return cp.slice(0, chars - 2).join("") + "..";
	}
	function setLabel(f, x, px) {
		var l = label(f, px);
		if (!f.text) {
			if (l === "")
				return;
			f.text = doc.createElementNS(svgns, "text");
			f.text.setAttribute("y", (parseFloat(f.rect.getAttribute("y")) +
				parseFloat(f.rect.getAttribute("height")) / 2 + 3).toString());
			f.g.appendChild(f.text);
		}
		f.text.setAttribute("x", (x + 3).toFixed(2));
		f.text.textContent = l;
	}

	// ---- URL state: x and y of the zoomed frame (as flamegraph.pl), s, i ----
	function getParams() {
		var out = {};
		var q = window.location.search.substring(1).split("&");
		for (var k = 0; k < q.length; k++) {
			var kv = q[k].split("=");
			if (kv[0] && kv.length > 1)
				out[decodeURIComponent(kv[0])] = decodeURIComponent(kv.slice(1).join("="));
		}
		return out;
	}
	function setParams(p) {
		var parts = [];
		for (var k in p)
			if (Object.prototype.hasOwnProperty.call(p, k))
				parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(p[k]));
		var url = window.location.href.split("?")[0].split("#")[0];
		if (parts.length)
			url += "?" + parts.join("&");
		try {
			history.replaceState(null, "", url);
		} catch (e) {
			// file: URLs in some browsers refuse; the state is then not kept.
		}
	}
	function saveState() {
		var p = getParams();
		delete p["x" + sfx]; delete p["y" + sfx]; delete p["s" + sfx]; delete p["i" + sfx];
		if (zoomed >= 0 && zoomed !== root) {
			p["x" + sfx] = F[zoomed].x0;
			p["y" + sfx] = F[zoomed].rect.getAttribute("y");
		}
		if (term !== null)
			p["s" + sfx] = term;
		if (ignorecase)
			p["i" + sfx] = "1";
		setParams(p);
	}

	// ---- zoom ----
	function show(f, x, px) {
		f.g.classList.remove("hide");
		f.rect.setAttribute("x", x.toFixed(1));
		f.rect.setAttribute("width", px.toFixed(1));
		setLabel(f, x, px);
	}
	function zoom(k) {
		if (typeof k !== "number")
			k = k && k.__fi !== undefined ? k.__fi : -1;
		if (k < 0 || k >= F.length)
			return;
		if (k === root) {
			unzoom();
			return;
		}
		var z = F[k];
		var eps = z.w * 1e-9;
		var scale = fullw / z.w;
		for (var j = 0; j < F.length; j++) {
			var f = F[j];
			var inside = f.s >= z.s - eps && f.s + f.w <= z.s + z.w + eps;
			if (f.depth < z.depth) {
				if (f.s <= z.s + eps && f.s + f.w >= z.s + z.w - eps) {
					f.g.classList.add("parent");
					show(f, cfg.xpad, fullw);
				} else {
					f.g.classList.add("hide");
				}
			} else if (inside) {
				f.g.classList.remove("parent");
				show(f, cfg.xpad + (f.s - z.s) * scale, f.w * scale);
			} else {
				f.g.classList.add("hide");
			}
		}
		zoomed = k;
		unzoomBtn.classList.remove("hide");
		// The time axis is the whole chart's.
		if (axisEl) axisEl.classList.add("hide");
		refreshSearch();
		saveState();
	}
	function unzoom() {
		for (var j = 0; j < F.length; j++) {
			var f = F[j];
			f.g.classList.remove("hide");
			f.g.classList.remove("parent");
			f.rect.setAttribute("x", f.x0);
			f.rect.setAttribute("width", f.w0);
			if (f.text) {
				f.text.setAttribute("x", (parseFloat(f.x0) + 3).toFixed(2));
				f.text.textContent = f.label0;
			}
		}
		zoomed = -1;
		unzoomBtn.classList.add("hide");
		if (axisEl) axisEl.classList.remove("hide");
		refreshSearch();
		saveState();
	}

	// ---- search ----
	function clearMarks() {
		for (var j = 0; j < F.length; j++)
			F[j].g.classList.remove("m");
	}
	function refreshSearch() {
		clearMarks();
		if (term === null) {
			matchedEl.classList.add("hide");
			matchedEl.textContent = " ";
			searchBtn.classList.remove("show");
			searchBtn.textContent = "Search";
			return;
		}
		var re;
		try {
			re = new RegExp(term, ignorecase ? "i" : "");
		} catch (e) {
			matchedEl.classList.remove("hide");
			matchedEl.textContent = "Invalid regex";
			return;
		}
		searchBtn.classList.add("show");
		searchBtn.textContent = "Reset Search";
		// The view: the zoomed frame's range, or everything.
		var vw = zoomed >= 0 ? F[zoomed].w : cfg.total;
		var zd = zoomed >= 0 ? F[zoomed].depth : -1;
		var hits = [];
		var all = false;
		for (var j = 0; j < F.length; j++) {
			var f = F[j];
			if (!re.test(f.name))
				continue;
			f.g.classList.add("m");
			if (f.g.classList.contains("hide"))
				continue;
			if (f.depth < zd || j === root)
				all = true;
			else
				hits.push(f);
		}
		var count = 0;
		if (all) {
			count = vw;
		} else {
			// Widest first at each start, then skip what an outer match covers.
			hits.sort(function (a, b) { return a.s - b.s || b.w - a.w; });
			var end = -Infinity;
			for (j = 0; j < hits.length; j++) {
				if (hits[j].s >= end - vw * 1e-12) {
					count += hits[j].w;
					end = hits[j].s + hits[j].w;
				}
			}
		}
		var pct = vw > 0 ? 100 * count / vw : 0;
		matchedEl.classList.remove("hide");
		matchedEl.textContent = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "%";
	}
	function search(t) {
		term = t === undefined || t === null || t === "" ? null : String(t);
		refreshSearch();
		saveState();
	}
	function searchPrompt() {
		if (term !== null) {
			search(null);
			return;
		}
		var t = prompt("Search for a regular expression (e.g. ^JSON\\.)" +
			(ignorecase ? ", ignoring case" : "") +
			"\nCtrl-I toggles case sensitivity", "");
		if (t !== null)
			search(t);
	}
	function toggleIgnorecase() {
		ignorecase = !ignorecase;
		icBtn.classList.toggle("show", ignorecase);
		refreshSearch();
		saveState();
	}

	// ---- events ----
	function frameOf(node) {
		while (node && node.parentNode !== framesEl) {
			node = node.parentNode;
			if (node === doc || !node)
				return null;
		}
		return node && node.__fi !== undefined ? node : null;
	}
	window.addEventListener("click", function (e) {
		if (!host.contains(e.target))
			return;
		var g = frameOf(e.target);
		if (g) {
			zoom(g.__fi);
			return;
		}
		var id = e.target && e.target.id;
		if (id === "unzoom") unzoom();
		else if (id === "search") searchPrompt();
		else if (id === "ignorecase") toggleIgnorecase();
	}, false);
	window.addEventListener("mouseover", function (e) {
		if (host.contains(e.target))
			window.flameActive = host;
		var g = frameOf(e.target);
		if (g)
			details.textContent = cfg.nametype + " " + F[g.__fi].title;
	}, false);
	window.addEventListener("mouseout", function (e) {
		if (frameOf(e.target))
			details.textContent = " ";
	}, false);
	window.addEventListener("keydown", function (e) {
		if (window.flameActive !== host)
			return;
		var k = e.key;
		if (k === "F3" || ((e.ctrlKey || e.metaKey) && (k === "f" || k === "F"))) {
			e.preventDefault();
			searchPrompt();
		} else if ((e.ctrlKey || e.metaKey) && (k === "i" || k === "I")) {
			e.preventDefault();
			toggleIgnorecase();
		} else if (k === "Escape") {
			if (zoomed >= 0) unzoom();
			else if (term !== null) search(null);
		}
	}, false);

	// The entry points, for a page embedding the SVG and for tests.
	// window.flamegraph is the first chart; window.flamegraphs, every one.
	var api = {
		frames: F,
		zoom: zoom,
		unzoom: unzoom,
		search: search,
		toggleIgnorecase: toggleIgnorecase,
		matched: function () { return matchedEl.textContent; },
		element: host
	};
	if (!window.flamegraph)
		window.flamegraph = api;
	(window.flamegraphs = window.flamegraphs || []).push(api);

	// ---- restore the state kept in the URL ----
	var params = getParams();
	if (params["i" + sfx] === "1") {
		ignorecase = true;
		icBtn.classList.add("show");
	}
	if (params["x" + sfx] !== undefined && params["y" + sfx] !== undefined) {
		var best = -1;
		for (i = 0; i < F.length; i++)
			if (F[i].x0 === params["x" + sfx] && F[i].rect.getAttribute("y") === params["y" + sfx] &&
			    (best < 0 || F[i].w > F[best].w))
				best = i;
		if (best >= 0)
			zoom(best);
	}
	if (params["s" + sfx])
		search(params["s" + sfx]);
})();
