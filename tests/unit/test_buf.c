/* Unit tests of the growable byte buffer (arena.c, buf_private.h): the
 * invariants its header promises, reset and detach. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf_private.h"

/* The invariants of buf_private.h, checked on B. */
static void check_invariants(const struct pp_buf *b)
{
	assert_non_null(b->s);
	assert_int_equal(b->s[b->len], '\0');
	if (b->cap == 0) {
		assert_int_equal(b->len, 0);
		assert_ptr_equal(b->s, pp_buf_empty);
	} else {
		assert_true(b->len < b->cap);
	}
}

static void test_init_is_empty_string(void **state)
{
	(void)state;
	struct pp_buf b;
	pp_buf_init(&b);
	check_invariants(&b);
	assert_string_equal(b.s, "");
	struct pp_buf c = PP_BUF_INIT;
	check_invariants(&c);
	assert_ptr_equal(c.s, b.s);
	/* Releasing a buffer that holds nothing frees nothing. */
	pp_buf_release(&b);
	check_invariants(&b);
}

static void test_add_keeps_nul_and_bytes(void **state)
{
	(void)state;
	struct pp_buf b;
	pp_buf_init(&b);
	assert_true(pp_buf_add(&b, "ab", 2));
	check_invariants(&b);
	assert_true(pp_buf_add(&b, "c\0d", 3)); /* embedded NUL kept */
	check_invariants(&b);
	assert_int_equal(b.len, 5);
	assert_memory_equal(b.s, "abc\0d", 6);
	assert_true(pp_buf_addc(&b, 'e'));
	assert_true(pp_buf_add(&b, "", 0));
	check_invariants(&b);
	assert_int_equal(b.len, 6);
	assert_memory_equal(b.s, "abc\0de", 7);
	pp_buf_release(&b);
	check_invariants(&b);
}

static void test_addf_short_and_long(void **state)
{
	(void)state;
	struct pp_buf b;
	pp_buf_init(&b);
	assert_true(pp_buf_addf(&b, "%d-%s", 42, "x"));
	assert_string_equal(b.s, "42-x");
	/* Longer than the function's stack buffer (256 bytes). */
	char big[1001];
	memset(big, 'z', 1000);
	big[1000] = '\0';
	assert_true(pp_buf_addf(&b, "[%s]", big));
	check_invariants(&b);
	assert_int_equal(b.len, 4 + 1002);
	assert_int_equal(b.s[4], '[');
	assert_int_equal(b.s[1005], ']');
	assert_int_equal(strlen(b.s), b.len);
	pp_buf_release(&b);
}

static void test_grow_overflow_leaves_buffer(void **state)
{
	(void)state;
	struct pp_buf b;
	pp_buf_init(&b);
	assert_true(pp_buf_add(&b, "keep", 4));
	char *s = b.s;
	size_t cap = b.cap;
	assert_false(pp_buf_grow(&b, SIZE_MAX));
	assert_false(pp_buf_grow(&b, SIZE_MAX - 2));
	assert_ptr_equal(b.s, s);
	assert_int_equal(b.cap, cap);
	assert_string_equal(b.s, "keep");
	check_invariants(&b);
	/* Growing an empty buffer by 0 allocates, and "" stays "". */
	struct pp_buf e;
	pp_buf_init(&e);
	assert_true(pp_buf_grow(&e, 0));
	assert_true(e.cap > 0);
	check_invariants(&e);
	assert_string_equal(e.s, "");
	pp_buf_release(&e);
	pp_buf_release(&b);
}

static void test_reset_keeps_allocation(void **state)
{
	(void)state;
	struct pp_buf b;
	pp_buf_init(&b);
	pp_buf_reset(&b); /* on a buffer that holds nothing */
	check_invariants(&b);
	assert_true(pp_buf_add(&b, "hello", 5));
	char *s = b.s;
	size_t cap = b.cap;
	pp_buf_reset(&b);
	check_invariants(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.s, "");
	assert_ptr_equal(b.s, s);
	assert_int_equal(b.cap, cap);
	assert_true(pp_buf_add(&b, "hi", 2));
	assert_string_equal(b.s, "hi");
	assert_ptr_equal(b.s, s);
	pp_buf_setlen(&b, 1);
	check_invariants(&b);
	assert_string_equal(b.s, "h");
	pp_buf_release(&b);
}

static void test_detach(void **state)
{
	(void)state;
	struct pp_buf b;
	pp_buf_init(&b);
	assert_true(pp_buf_add(&b, "abc", 3));
	size_t len = 99;
	char *s = pp_buf_detach(&b, &len);
	assert_non_null(s);
	assert_int_equal(len, 3);
	assert_string_equal(s, "abc");
	/* The buffer is left empty and usable. */
	check_invariants(&b);
	assert_int_equal(b.cap, 0);
	assert_true(pp_buf_addc(&b, 'x'));
	assert_string_equal(b.s, "x");
	assert_ptr_not_equal(b.s, s);
	free(s);
	pp_buf_release(&b);

	/* An empty buffer that never held memory still gives a string to
	 * free, never the shared "". */
	pp_buf_init(&b);
	s = pp_buf_detach(&b, &len);
	assert_non_null(s);
	assert_ptr_not_equal(s, pp_buf_empty);
	assert_int_equal(len, 0);
	assert_string_equal(s, "");
	check_invariants(&b);
	free(s);

	/* After a reset: an empty string in the old allocation; LEN may be
	 * NULL. */
	assert_true(pp_buf_add(&b, "gone", 4));
	pp_buf_reset(&b);
	s = pp_buf_detach(&b, NULL);
	assert_string_equal(s, "");
	check_invariants(&b);
	free(s);
}

static void test_arena(void **state)
{
	(void)state;
	struct pp_arena a;
	pp_arena_init(&a);
	size_t total = 0;
	for (int i = 1; i < 2000; i++) {
		char *p = pp_arena_alloc(&a, (size_t)i % 97 + 1);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % _Alignof(max_align_t), 0);
		memset(p, 0xa5, (size_t)i % 97 + 1);
		total += (size_t)i % 97 + 1;
	}
	/* One allocation larger than a block. */
	assert_non_null(pp_arena_alloc(&a, (size_t)1 << 20));
	assert_true(a.total >= total + ((size_t)1 << 20));
	pp_arena_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_is_empty_string),
		cmocka_unit_test(test_add_keeps_nul_and_bytes),
		cmocka_unit_test(test_addf_short_and_long),
		cmocka_unit_test(test_grow_overflow_leaves_buffer),
		cmocka_unit_test(test_reset_keeps_allocation),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_arena),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
