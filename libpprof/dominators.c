/*
 * dominators.c: what DevTools computes on a heap snapshot before its
 * Summary (devtools-frontend HeapSnapshot.ts, followed step by step; see
 * doc/heapsnapshot.md): the DOM link state, the page-owned nodes, the edges
 * that count for dominators, the shallow sizes moved to their owner, the
 * dominator tree (Lengauer and Tarjan, 1979, iterative) and retained sizes.
 * Every walk keeps its own stack: no recursion on the graph's depth.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "heapsnap.h"

#define BIT_SET(v, i) ((v)[(i) >> 6] |= (uint64_t)1 << ((i)&63))
#define BIT_GET(v, i) (((v)[(i) >> 6] >> ((i)&63)) & 1)

/* The DOM state: attached flows to every native node reachable from an
 * attached one, then detached to those not attached, over edges that are
 * neither hidden nor weak; JavaScript nodes stop it. */
static int propagate_dom_state(struct pprof_profile *p, struct pp_hs *h)
{
	if (!h->detached)
		return PPROF_OK;
	uint8_t *visited = calloc(h->n, 1);
	uint32_t *att = malloc((size_t)h->n * sizeof(*att));
	uint32_t *det = malloc((size_t)h->n * sizeof(*det));
	size_t na = 0, nd = 0;
	if (!visited || !att || !det) {
		free(visited);
		free(att);
		free(det);
		return pp_nomem(p);
	}
#define PROCESS(o, st)                                                 \
	do {                                                           \
		uint32_t o_ = (o);                                     \
		if (!visited[o_]) {                                    \
			visited[o_] = 1;                               \
			if (h->type[o_] == h->t_native) {              \
				h->detached[o_] = (st);                \
				if ((st) == 1)                         \
					att[na++] = o_;                \
				else if ((st) == 2)                    \
					det[nd++] = o_;                \
			}                                              \
		}                                                      \
	} while (0)
	for (uint32_t i = 0; i < h->n; i++) {
		uint8_t st = h->detached[i];
		if (st != 0)
			PROCESS(i, st);
	}
	while (na) {
		uint32_t o = att[--na];
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++)
			if (h->etype[e] != h->et_hidden && h->etype[e] != h->et_weak)
				PROCESS(h->to[e], 1);
	}
	while (nd) {
		uint32_t o = det[--nd];
		if (h->detached[o] == 1)
			continue;
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++)
			if (h->etype[e] != h->et_hidden && h->etype[e] != h->et_weak)
				PROCESS(h->to[e], 2);
	}
#undef PROCESS
	free(visited);
	free(att);
	free(det);
	return PPROF_OK;
}

static bool is_dom_trees_root(const struct pp_hs *h, uint32_t o)
{
	size_t len;
	const char *s = pp_hs_str(h, h->name[o], &len);
	return h->type[o] == h->t_synthetic && len == 20 && memcmp(s, "(Document DOM trees)", 20) == 0;
}

/* Page-owned: reachable over non-weak edges from the root's shortcut
 * targets and its element edges to "(Document DOM trees)".  NULL flags
 * (none page-owned) when there are no such entries. */
static int page_owned(struct pprof_profile *p, const struct pp_hs *h, uint8_t **out)
{
	uint8_t *fl = calloc(h->n, 1);
	uint32_t *stack = malloc((size_t)h->n * sizeof(*stack));
	size_t ns = 0;
	if (!fl || !stack) {
		free(fl);
		free(stack);
		return pp_nomem(p);
	}
	uint32_t r = h->root;
	for (uint32_t e = h->first[r]; e < h->first[r + 1]; e++) {
		uint32_t t = h->to[e];
		if (h->etype[e] == h->et_element) {
			if (!is_dom_trees_root(h, t))
				continue;
		} else if (h->etype[e] != h->et_shortcut) {
			continue;
		}
		if (!fl[t])
			stack[ns++] = t;
		fl[t] = 1;
	}
	while (ns) {
		uint32_t o = stack[--ns];
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++) {
			uint32_t t = h->to[e];
			if (fl[t] || h->etype[e] == h->et_weak)
				continue;
			fl[t] = 1;
			stack[ns++] = t;
		}
	}
	free(stack);
	*out = fl;
	return PPROF_OK;
}

/* The table id of a WeakMap's internal edge name, "N / part of key (K @k)
 * -> value (V @v) pair in WeakMap (table @T)", or -1. */
static int64_t weakmap_table(const char *s, size_t n)
{
	static const char tail[] = " pair in WeakMap (table @";
	static const char head[] = " / part of key (";
	size_t i = 0, tl = sizeof(tail) - 1, hl = sizeof(head) - 1;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i == 0 || n - i < hl || memcmp(s + i, head, hl) != 0)
		return -1;
	size_t kstart = i + hl;
	/* the end: "(table @" digits ")" */
	if (n < 1 || s[n - 1] != ')')
		return -1;
	size_t d = n - 1;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (d == n - 1 || d < tl || memcmp(s + d - tl, tail, tl) != 0)
		return -1;
	size_t mend = d - tl; /* the middle ends with "(V @v)" */
	int64_t table = 0;
	if (n - 1 - d > 12)
		table = INT64_MAX; /* matches no node id */
	else
		for (size_t k = d; k < n - 1; k++)
			table = table * 10 + (s[k] - '0');
	/* value part: ") -> value (" with " @digits" before it, and
	 * " @digits)" at mend */
	if (mend < 1 || s[mend - 1] != ')')
		return -1;
	size_t q = mend - 1;
	size_t dd = q;
	while (dd > 0 && s[dd - 1] >= '0' && s[dd - 1] <= '9')
		dd--;
	if (dd == q || dd < 2 || s[dd - 1] != '@' || s[dd - 2] != ' ')
		return -1;
	static const char mid[] = ") -> value (";
	size_t ml = sizeof(mid) - 1;
	for (size_t k = kstart; k + ml <= dd - 2; k++) {
		if (memcmp(s + k, mid, ml) != 0)
			continue;
		size_t e = k;
		while (e > kstart && s[e - 1] >= '0' && s[e - 1] <= '9')
			e--;
		if (e < k && e >= kstart + 2 && s[e - 1] == '@' && s[e - 2] == ' ')
			return table;
	}
	return -1;
}

/* Which edges count for dominators (HeapSnapshot.ts computeIsEssentialEdge). */
static int essential_edges(struct pprof_profile *p, struct pp_hs *h)
{
	uint8_t *fl = NULL;
	int64_t *wm = NULL; /* per string: -2 not yet parsed, else weakmap_table() */
	int s = page_owned(p, h, &fl);
	if (s != PPROF_OK)
		return s;
	h->essential = calloc(((size_t)h->e + 63) / 64 + 1, sizeof(uint64_t));
	wm = malloc((size_t)h->nstrings * sizeof(*wm) + 1);
	if (!h->essential || !wm) {
		free(fl);
		free(wm);
		return pp_nomem(p);
	}
	for (uint32_t i = 0; i < h->nstrings; i++)
		wm[i] = -2;
	for (uint32_t o = 0; o < h->n; o++) {
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++) {
			uint8_t t = h->etype[e];
			if (t == h->et_internal) {
				uint32_t nm = h->ename[e];
				if (wm[nm] == -2) {
					size_t len;
					const char *str = pp_hs_str(h, nm, &len);
					wm[nm] = weakmap_table(str, len);
				}
				if (wm[nm] >= 0 && wm[nm] == (int64_t)h->id[o])
					continue;
			}
			if (t == h->et_weak)
				continue;
			uint32_t c = h->to[e];
			if (c == o)
				continue;
			if (o != h->root) {
				if (t == h->et_shortcut)
					continue;
				if (fl[c] && !fl[o])
					continue;
			}
			BIT_SET(h->essential, e);
		}
	}
	free(fl);
	free(wm);
	return PPROF_OK;
}

static bool has_user_roots(const struct pp_hs *h)
{
	uint32_t r = h->root;
	for (uint32_t e = h->first[r]; e < h->first[r + 1]; e++) {
		uint32_t t = h->to[e];
		if (h->type[t] != h->t_synthetic || is_dom_trees_root(h, t))
			return true;
	}
	return false;
}

/* With user roots, the sizes of hidden and array nodes (and external
 * string data) owned by one other node move to that owner
 * (HeapSnapshot.ts calculateShallowSizes). */
static int shallow_sizes(struct pprof_profile *p, struct pp_hs *h)
{
	const uint32_t unvisited = UINT32_MAX, multiple = UINT32_MAX - 1;
	h->user_roots = has_user_roots(h);
	if (!h->user_roots)
		return PPROF_OK;
	uint32_t *own = malloc((size_t)h->n * sizeof(*own));
	size_t cap = (size_t)h->n + 16, n = 0;
	uint32_t *work = malloc(cap * sizeof(*work));
	if (!own || !work) {
		free(own);
		free(work);
		return pp_nomem(p);
	}
	for (uint32_t i = 0; i < h->n; i++) {
		size_t len;
		const char *nm = pp_hs_str(h, h->name[i], &len);
		if (h->type[i] == h->t_hidden || h->type[i] == h->t_array ||
		    (h->type[i] == h->t_native && len == 27 &&
		     memcmp(nm, "system / ExternalStringData", 27) == 0)) {
			own[i] = unvisited;
		} else {
			own[i] = i;
			work[n++] = i;
		}
	}
	while (n) {
		uint32_t id = work[--n], owner = own[id];
		for (uint32_t e = h->first[id]; e < h->first[id + 1]; e++) {
			if (h->etype[e] == h->et_weak)
				continue;
			uint32_t t = h->to[e];
			uint32_t o = own[t];
			if (o == t || o == owner || o == multiple)
				continue;
			own[t] = o == unvisited ? owner : multiple;
			/* each node is pushed at most twice more than at first */
			if (n == cap) {
				void *w = work;
				if (!pp_grow(&w, &cap, n + 1, sizeof(*work))) {
					free(own);
					free(work);
					return pp_nomem(p);
				}
				work = w;
			}
			work[n++] = t;
		}
	}
	for (uint32_t i = 0; i < h->n; i++) {
		uint32_t o = own[i];
		if (o == unvisited || o == multiple || o == i)
			continue;
		if (h->type[o] == h->t_synthetic || o == h->root)
			continue;
		uint64_t sum = (uint64_t)h->self[o] + h->self[i];
		if (sum > UINT32_MAX) {
			free(own);
			free(work);
			return pp_error(p, PPROF_EINPUT,
					"node %u: its owned nodes' sizes add up past 2^32 bytes", o);
		}
		h->self[o] = (uint32_t)sum;
		h->self[i] = 0;
	}
	free(own);
	free(work);
	return PPROF_OK;
}

/* Lengauer-Tarjan over the essential edges, numbered from 1 (0: none), with
 * DevTools' treatment of what the root does not reach: nodes with no
 * essential retainer start a walk of their own under the root (in node
 * order), then every node still unnumbered hangs under the root alone. */
static int lengauer_tarjan(struct pprof_profile *p, struct pp_hs *h)
{
	size_t N = (size_t)h->n + 1;
	uint32_t *parent = calloc(N, 4), *ancestor = calloc(N, 4), *vertex = calloc(N, 4),
		 *label = calloc(N, 4), *semi = calloc(N, 4), *dom = calloc(N, 4),
		 *bhead = calloc(N, 4), *bnext = calloc(N, 4), *nexte = calloc(N, 4),
		 *cstack = calloc(N, 4), *pfirst = calloc(N + 1, 4), *pred = NULL;
	int s = PPROF_OK;
	uint32_t n = 0;

	if (!parent || !ancestor || !vertex || !label || !semi || !dom || !bhead || !bnext ||
	    !nexte || !cstack || !pfirst) {
		s = pp_nomem(p);
		goto out;
	}
	/* predecessors over essential edges: pred[pfirst[w] .. pfirst[w + 1]) */
	size_t ness = 0;
	for (uint32_t e = 0; e < h->e; e++)
		if (BIT_GET(h->essential, e)) {
			pfirst[h->to[e] + 1]++;
			ness++;
		}
	for (size_t i = 1; i <= N; i++)
		pfirst[i] += pfirst[i - 1];
	pred = malloc((ness + 1) * sizeof(*pred));
	if (!pred) {
		s = pp_nomem(p);
		goto out;
	}
	/* bnext as the fill cursor for now */
	for (uint32_t o = 0; o < h->n; o++)
		for (uint32_t e = h->first[o]; e < h->first[o + 1]; e++)
			if (BIT_GET(h->essential, e)) {
				uint32_t t = h->to[e];
				pred[pfirst[t] + bnext[t]++] = o;
			}
	memset(bnext, 0, N * 4);

#define DFS(start)                                                                      \
	do {                                                                            \
		uint32_t v_ = (start);                                                  \
		nexte[v_ - 1] = h->first[v_ - 1];                                       \
		while (v_ != 0) {                                                       \
			if (semi[v_] == 0) {                                            \
				semi[v_] = ++n;                                         \
				vertex[n] = label[v_] = v_;                             \
			}                                                               \
			uint32_t vn_ = parent[v_], vo_ = v_ - 1;                        \
			for (; nexte[vo_] < h->first[vo_ + 1]; nexte[vo_]++) {          \
				uint32_t e_ = nexte[vo_];                               \
				if (!BIT_GET(h->essential, e_))                         \
					continue;                                       \
				uint32_t w_ = h->to[e_] + 1;                            \
				if (semi[w_] == 0) {                                    \
					parent[w_] = v_;                                \
					nexte[w_ - 1] = h->first[w_ - 1];               \
					vn_ = w_;                                       \
					break;                                          \
				}                                                       \
			}                                                               \
			v_ = vn_;                                                       \
		}                                                                       \
	} while (0)

	uint32_t r = h->root + 1;
	DFS(r);
	if (n < h->n) {
		for (uint32_t v = 1; v <= h->n; v++)
			if (semi[v] == 0 && pfirst[v - 1] == pfirst[v]) {
				parent[v] = r;
				DFS(v);
			}
	}
	if (n < h->n) {
		for (uint32_t v = 1; v <= h->n; v++)
			if (semi[v] == 0) {
				parent[v] = r;
				semi[v] = ++n;
				vertex[n] = label[v] = v;
			}
	}
#undef DFS

	for (uint32_t i = n; i >= 2; i--) {
		uint32_t w = vertex[i], wo = w - 1;
		bool orphan = true;
		for (uint32_t k = pfirst[wo]; k < pfirst[wo + 1]; k++) {
			orphan = false;
			uint32_t v = pred[k] + 1, u;
			/* evaluate(v) */
			if (ancestor[v] == 0) {
				u = v;
			} else {
				uint32_t sp = 0, x = v;
				while (ancestor[ancestor[x]] != 0) {
					cstack[++sp] = x;
					x = ancestor[x];
				}
				while (sp > 0) {
					uint32_t y = cstack[sp--];
					if (semi[label[ancestor[y]]] < semi[label[y]])
						label[y] = label[ancestor[y]];
					ancestor[y] = ancestor[ancestor[y]];
				}
				u = label[v];
			}
			if (semi[u] < semi[w])
				semi[w] = semi[u];
		}
		if (orphan)
			semi[w] = semi[r];
		uint32_t b = vertex[semi[w]];
		bnext[w] = bhead[b];
		bhead[b] = w;
		ancestor[w] = parent[w];
		uint32_t pw = parent[w];
		for (uint32_t v = bhead[pw]; v != 0; v = bnext[v]) {
			uint32_t u;
			if (ancestor[v] == 0) {
				u = v;
			} else {
				uint32_t sp = 0, x = v;
				while (ancestor[ancestor[x]] != 0) {
					cstack[++sp] = x;
					x = ancestor[x];
				}
				while (sp > 0) {
					uint32_t y = cstack[sp--];
					if (semi[label[ancestor[y]]] < semi[label[y]])
						label[y] = label[ancestor[y]];
					ancestor[y] = ancestor[ancestor[y]];
				}
				u = label[v];
			}
			dom[v] = semi[u] < semi[v] ? u : pw;
		}
		bhead[pw] = 0;
	}
	dom[0] = dom[r] = r;
	for (uint32_t i = 2; i <= n; i++) {
		uint32_t w = vertex[i];
		if (dom[w] != vertex[semi[w]])
			dom[w] = dom[dom[w]];
	}
	/* what the walk alone needed goes before the results are allocated:
	 * the peak is the walk's (a million nodes: 16 MB less) */
	free(parent);
	free(ancestor);
	free(label);
	free(semi);
	free(bhead);
	free(pred);
	parent = ancestor = label = semi = bhead = pred = NULL;

	h->dom = malloc((size_t)h->n * sizeof(*h->dom));
	h->retained = malloc((size_t)h->n * sizeof(*h->retained));
	h->order = malloc((size_t)h->n * sizeof(*h->order));
	if (!h->dom || !h->retained || !h->order) {
		s = pp_nomem(p);
		goto out;
	}
	for (uint32_t o = 0; o < h->n; o++) {
		h->dom[o] = dom[o + 1] - 1;
		h->retained[o] = h->self[o];
	}
	for (uint32_t i = n; i > 1; i--) {
		uint32_t o = vertex[i] - 1;
		h->retained[h->dom[o]] += h->retained[o];
	}
	/* A preorder of the dominator tree (children lists in cstack/bnext's
	 * place), so that a node's dominator comes before it. */
	uint32_t *kfirst = pfirst, *kids = bnext, *stk = cstack;
	memset(kfirst, 0, (N + 1) * 4);
	for (uint32_t o = 0; o < h->n; o++)
		if (o != h->root)
			kfirst[h->dom[o] + 1]++;
	for (size_t i = 1; i <= N; i++)
		kfirst[i] += kfirst[i - 1];
	memset(nexte, 0, N * 4);
	for (uint32_t o = 0; o < h->n; o++)
		if (o != h->root) {
			uint32_t d = h->dom[o];
			kids[kfirst[d] + nexte[d]++] = o;
		}
	uint32_t sp = 0, k = 0;
	stk[sp++] = h->root;
	while (sp) {
		uint32_t o = stk[--sp];
		h->order[k++] = o;
		for (uint32_t c = kfirst[o]; c < kfirst[o + 1]; c++)
			stk[sp++] = kids[c];
	}
	if (k != h->n)
		s = pp_error(p, PPROF_EINPUT, "the dominator tree does not reach %u nodes",
			     h->n - k);
out:
	free(parent);
	free(ancestor);
	free(vertex);
	free(label);
	free(semi);
	free(dom);
	free(bhead);
	free(bnext);
	free(nexte);
	free(cstack);
	free(pfirst);
	free(pred);
	return s;
}

int pp_hs_dominators(struct pprof_profile *p, struct pp_hs *h)
{
	int s;
	if ((s = propagate_dom_state(p, h)) != PPROF_OK || (s = essential_edges(p, h)) != PPROF_OK ||
	    (s = shallow_sizes(p, h)) != PPROF_OK)
		return s;
	return lengauer_tarjan(p, h);
}
