/* Unit tests of the pprof writer (write_pprof.c): what it writes, read
 * back with protobuf-c's own unpacker, and read back by our reader. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "pprof_private.h"
#include "profile.pb-c.h"

/* P written to memory, gunzipped. */
static unsigned char *write_mem(struct pprof_profile *p, size_t *len)
{
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	assert_non_null(f);
	assert_int_equal(pprof_write_pprof(p, f), PPROF_OK);
	assert_int_equal(fclose(f), 0);
	assert_true(blen > 18);
	assert_int_equal((unsigned char)buf[0], 0x1f);
	assert_int_equal((unsigned char)buf[1], 0x8b);
	size_t cap = 1 << 20;
	unsigned char *out = malloc(cap);
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)buf;
	z.avail_in = (uInt)blen;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	*len = cap - z.avail_out;
	inflateEnd(&z);
	free(buf);
	return out;
}

static struct pprof_profile *read_text(const char *text)
{
	struct pprof_profile *p = pprof_profile_new();
	if (pprof_read_buffer(p, text, strlen(text), NULL) != PPROF_OK)
		fail_msg("read failed: %s", pprof_profile_error(p));
	return p;
}

static const char *s(const Perftools__Profiles__Profile *m, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < m->n_string_table);
	return m->string_table[i];
}

static void test_write_pprof_folded(void **state)
{
	(void)state;
	struct pprof_profile *p = read_text("main;a;b 3\nmain;a 2\nmain;b 1\n");
	size_t len;
	unsigned char *raw = write_mem(p, &len);
	Perftools__Profiles__Profile *m = perftools__profiles__profile__unpack(NULL, len, raw);
	assert_non_null(m);
	/* strings once each, "" first */
	assert_string_equal(m->string_table[0], "");
	for (size_t i = 0; i < m->n_string_table; i++)
		for (size_t k = i + 1; k < m->n_string_table; k++)
			assert_string_not_equal(m->string_table[i], m->string_table[k]);
	assert_int_equal(m->n_sample_type, 1);
	assert_int_equal(m->n_sample, 3);
	/* main, a, b: one function and one location each */
	assert_int_equal(m->n_function, 3);
	assert_int_equal(m->n_location, 3);
	assert_int_equal(m->n_mapping, 0);
	int64_t total = 0;
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = m->sample[i];
		assert_int_equal(sm->n_value, 1);
		total += sm->value[0];
		/* the leaf first, main last */
		const Perftools__Profiles__Location *root = NULL;
		for (size_t k = 0; k < m->n_location; k++)
			if (m->location[k]->id == sm->location_id[sm->n_location_id - 1])
				root = m->location[k];
		assert_non_null(root);
		for (size_t k = 0; k < m->n_function; k++)
			if (m->function[k]->id == root->line[0]->function_id)
				assert_string_equal(s(m, m->function[k]->name), "main");
	}
	assert_int_equal(total, 6);
	perftools__profiles__profile__free_unpacked(m, NULL);

	/* and our reader gives the same folded lines back */
	struct pprof_profile *q = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(q, raw, len, NULL), PPROF_OK);
	struct pprof_fold_options o = {0, PPROF_G_FUNCTIONS};
	struct pprof_folded *a, *b;
	assert_int_equal(pprof_fold(p, &o, &a), PPROF_OK);
	assert_int_equal(pprof_fold(q, &o, &b), PPROF_OK);
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->lines[i].len, b->lines[i].len);
		assert_memory_equal(a->lines[i].stack, b->lines[i].stack, a->lines[i].len);
		assert_int_equal(a->lines[i].value, b->lines[i].value);
	}
	pprof_folded_free(a);
	pprof_folded_free(b);
	pprof_profile_free(q);
	free(raw);
	pprof_profile_free(p);
}

/* Inlined frames become the Lines of one Location, innermost first;
 * labels, metadata and default type are kept; NUL bytes in names survive. */
static void test_write_pprof_inline_labels_metadata(void **state)
{
	(void)state;
	struct pprof_profile *p = pprof_profile_new();
	struct pp_sample_type t[2];
	assert_int_equal(pp_intern_cstr(p, "alloc_space", &t[0].type), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "bytes", &t[0].unit), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "alloc_objects", &t[1].type), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "count", &t[1].unit), PPROF_OK);
	assert_int_equal(pp_begin_input(p, t, 2, 0), PPROF_OK);
	struct pp_frame f;
	memset(&f, 0, sizeof(f));
	uint32_t outer, inner, leaf, n;
	assert_int_equal(pp_intern_cstr(p, "outer", &f.name), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "a.go", &f.file), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "app", &f.mapping), PPROF_OK);
	f.line = 10;
	f.column = 3;
	f.address = 0x1234;
	f.flags = PP_FRAME_HAS_ADDRESS;
	assert_int_equal(pp_frame_intern(p, &f, &outer), PPROF_OK);
	assert_int_equal(pp_intern(p, "in\0ner", 6, &f.name), PPROF_OK);
	f.line = 20;
	f.flags |= PP_FRAME_INLINED;
	assert_int_equal(pp_frame_intern(p, &f, &inner), PPROF_OK);
	memset(&f, 0, sizeof(f));
	f.flags = PP_FRAME_NO_SYMBOL | PP_FRAME_HAS_ADDRESS;
	f.address = 0x99;
	assert_int_equal(pp_intern_cstr(p, "libc.so", &f.mapping), PPROF_OK);
	assert_int_equal(pp_frame_intern(p, &f, &leaf), PPROF_OK);
	assert_int_equal(pp_node_child(p, 0, outer, &n), PPROF_OK);
	assert_int_equal(pp_node_child(p, n, inner, &n), PPROF_OK);
	assert_int_equal(pp_node_child(p, n, leaf, &n), PPROF_OK);
	struct pp_label l[2];
	memset(l, 0, sizeof(l));
	assert_int_equal(pp_intern_cstr(p, "bytes", &l[0].key), PPROF_OK);
	l[0].num = 512;
	l[0].unit = t[0].unit;
	assert_int_equal(pp_intern_cstr(p, "thread", &l[1].key), PPROF_OK);
	assert_int_equal(pp_intern_cstr(p, "main", &l[1].str), PPROF_OK);
	uint32_t set;
	assert_int_equal(pp_labelset_intern(p, l, 2, &set), PPROF_OK);
	int64_t v[2] = {512, 1};
	assert_int_equal(pp_add_sample(p, n, set, v, 0), PPROF_OK);
	p->time_nanos = 1700000000000000000;
	p->duration_nanos = 5000000000;
	p->period = 524288;
	p->period_type = t[0];
	p->comments = malloc(sizeof(*p->comments));
	assert_int_equal(pp_intern_cstr(p, "a comment", &p->comments[0]), PPROF_OK);
	p->ncomments = 1;

	size_t len;
	unsigned char *raw = write_mem(p, &len);
	Perftools__Profiles__Profile *m = perftools__profiles__profile__unpack(NULL, len, raw);
	assert_non_null(m);
	assert_string_equal(s(m, m->default_sample_type), "alloc_space");
	assert_int_equal(m->time_nanos, 1700000000000000000);
	assert_int_equal(m->duration_nanos, 5000000000);
	assert_int_equal(m->period, 524288);
	assert_string_equal(s(m, m->period_type->type), "alloc_space");
	assert_int_equal(m->n_comment, 1);
	assert_string_equal(s(m, m->comment[0]), "a comment");
	assert_int_equal(m->n_location, 2);
	assert_int_equal(m->n_mapping, 2);
	const Perftools__Profiles__Sample *sm = m->sample[0];
	assert_int_equal(sm->n_location_id, 2);
	assert_int_equal(sm->n_label, 2);
	for (size_t i = 0; i < m->n_location; i++) {
		const Perftools__Profiles__Location *loc = m->location[i];
		if (loc->id == sm->location_id[0]) {
			assert_int_equal(loc->n_line, 0); /* address only */
			assert_int_equal(loc->address, 0x99);
		} else {
			assert_int_equal(loc->n_line, 2);
			assert_int_equal(loc->line[0]->line, 20); /* innermost first */
			assert_int_equal(loc->line[1]->line, 10);
			assert_int_equal(loc->line[1]->column, 3);
			assert_int_equal(loc->address, 0x1234);
		}
	}
	perftools__profiles__profile__free_unpacked(m, NULL);

	struct pprof_profile *q = pprof_profile_new();
	assert_int_equal(pprof_read_buffer(q, raw, len, NULL), PPROF_OK);
	assert_int_equal(pprof_sample_type_select(q, NULL), 0);
	assert_int_equal(q->nlabels, 2);
	struct pprof_fold_options o = {0, PPROF_G_LINES};
	struct pprof_folded *fo;
	assert_int_equal(pprof_fold(q, &o, &fo), PPROF_OK);
	assert_int_equal(fo->n, 1);
	static const char want[] = "outer a.go:10;in\0ner a.go:20;[libc.so]";
	assert_int_equal(fo->lines[0].len, sizeof(want) - 1);
	assert_memory_equal(fo->lines[0].stack, want, sizeof(want) - 1);
	pprof_folded_free(fo);
	pprof_profile_free(q);
	free(raw);
	pprof_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_pprof_folded),
		cmocka_unit_test(test_write_pprof_inline_labels_metadata),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
