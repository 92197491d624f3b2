/* test_buildcache.c — Check suite for grader/buildcache.c: an entry comes back byte for byte
 * for the same key and never for another one, even when the two share the entry's file name;
 * a damaged entry is a miss. CK_RUN_CASE=collision build/tests/test_buildcache. */
#include "buildcache.h"
#include "harness.h"

#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void spit(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(bytes, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* A cache directory, a "made" output of n bytes and a key of the given source text. */
typedef struct {
    char dir[512], cache[600], made[600], out[600], src[600];
    BuildKey key;
} Fixture;

static void fixture(Fixture *f, const char *source, size_t made_bytes)
{
    memset(f, 0, sizeof *f);
    harness_scratch_dir("bcache", f->dir, sizeof f->dir);
    snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
    snprintf(f->made, sizeof f->made, "%s/made.o", f->dir);
    snprintf(f->out, sizeof f->out, "%s/out.o", f->dir);
    snprintf(f->src, sizeof f->src, "%s/p2g.c", f->dir);
    ck_assert_int_eq(bcache_open(f->cache), 1);
    unsigned char *made = malloc(made_bytes);
    for (size_t i = 0; i < made_bytes; i++)
        made[i] = (unsigned char)(i * 7 + 3);
    spit(f->made, made, made_bytes);
    free(made);
    spit(f->src, source, strlen(source));
    bcache_key_text(&f->key, "compile cc -O2");
    bcache_key_stamp(&f->key, f->made);
    bcache_key_file(&f->key, f->src);
    ck_assert_int_eq(f->key.failed, 0);
}

static void assert_same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = harness_slurp(a, &na), *y = harness_slurp(b, &nb);
    ck_assert_ptr_nonnull(x);
    ck_assert_ptr_nonnull(y);
    ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s (%zu bytes) differs from %s (%zu bytes)", a, na, b, nb);
    free(x), free(y);
}

/* The one entry file in the cache directory. */
static void entry_path(const Fixture *f, char *path, size_t n)
{
    DIR *d = opendir(f->cache);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            found++, snprintf(path, n, "%s/%s", f->cache, e->d_name);
    closedir(d);
    ck_assert_int_eq(found, 1);
}

START_TEST(round_trip)
{
    Fixture f;
    fixture(&f, "void p2g(void) {}\n", 70000);
    ck_assert_int_eq(bcache_fetch(f.cache, &f.key, f.out, 0644), 0);
    ck_assert_int_eq(access(f.out, F_OK) != 0, 1);
    bcache_store(f.cache, &f.key, f.made);
    ck_assert_int_eq(bcache_fetch(f.cache, &f.key, f.out, 0755), 1);
    assert_same_file(f.made, f.out);
    struct stat st;
    ck_assert_int_eq(stat(f.out, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0755);
    ck_assert_int_eq(stat(f.cache, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0700);   /* no run, as nobody, reads another's objects */
    bcache_key_free(&f.key);
    harness_remove_tree(f.dir);
}
END_TEST

/* One byte of the source, or the stamp of a kit file, changes the key: a miss. */
START_TEST(other_key_misses)
{
    Fixture f;
    fixture(&f, "void p2g(void) { int a = 1; }\n", 100);
    bcache_store(f.cache, &f.key, f.made);
    const char *edited = "void p2g(void) { int a = 2; }\n";
    spit(f.src, edited, strlen(edited));
    BuildKey other = {0};
    bcache_key_text(&other, "compile cc -O2");
    bcache_key_stamp(&other, f.made);
    bcache_key_file(&other, f.src);
    ck_assert_int_eq(bcache_fetch(f.cache, &other, f.out, 0644), 0);
    bcache_key_free(&other);
    bcache_key_text(&other, "compile cc -O2");
    bcache_key_stamp(&other, f.src);           /* another kit file's stamp */
    bcache_key_file(&other, f.src);
    ck_assert_int_eq(bcache_fetch(f.cache, &other, f.out, 0644), 0);
    bcache_key_free(&other);
    bcache_key_text(&other, "compile cc -O2");
    bcache_key_file(&other, "/nonexistent/p2g.c");   /* unreadable input: never fetched */
    ck_assert_int_eq(other.failed, 1);
    ck_assert_int_eq(bcache_fetch(f.cache, &other, f.out, 0644), 0);
    bcache_key_free(&other);
    bcache_key_free(&f.key);
    harness_remove_tree(f.dir);
}
END_TEST

/* A student who finds another key with the same 64-bit name (FNV-1a is no secret) still does
 * not get the entry: the stored key is compared whole. Simulated by renaming one key's entry
 * to the name the other key looks up. */
START_TEST(collision)
{
    Fixture f;
    fixture(&f, "void p2g(void) { /* the reference */ }\n", 500);
    bcache_store(f.cache, &f.key, f.made);
    char ref[1024];
    entry_path(&f, ref, sizeof ref);
    ck_assert_int_eq(unlink(f.made), 0);

    Fixture g;   /* the cheat's key, its own cache, to learn the name it looks up */
    fixture(&g, "void p2g(void) { /* a cheat */ }\n", 20);
    bcache_store(g.cache, &g.key, g.made);
    char cheat[1024], name[1100];
    entry_path(&g, cheat, sizeof cheat);
    snprintf(name, sizeof name, "%s/%s", f.cache, strrchr(cheat, '/') + 1);
    ck_assert_int_eq(rename(ref, name), 0);
    ck_assert_int_eq(bcache_fetch(f.cache, &g.key, g.out, 0644), 0);
    ck_assert_int_eq(access(g.out, F_OK) != 0, 1);
    bcache_key_free(&f.key), bcache_key_free(&g.key);
    harness_remove_tree(f.dir), harness_remove_tree(g.dir);
}
END_TEST

/* Cut short, or with its output's length wrong: a miss, and no half output left behind. */
START_TEST(damaged_entry_misses)
{
    Fixture f;
    fixture(&f, "void p2g(void) {}\n", 4000);
    bcache_store(f.cache, &f.key, f.made);
    char entry[1024];
    entry_path(&f, entry, sizeof entry);
    size_t n = 0;
    char *whole = harness_slurp(entry, &n);
    ck_assert_ptr_nonnull(whole);
    spit(entry, whole, n - 1);
    ck_assert_int_eq(bcache_fetch(f.cache, &f.key, f.out, 0644), 0);
    ck_assert_int_eq(access(f.out, F_OK) != 0, 1);
    spit(entry, whole, 30);
    ck_assert_int_eq(bcache_fetch(f.cache, &f.key, f.out, 0644), 0);
    whole[0] ^= 1;   /* another format's magic */
    spit(entry, whole, n);
    ck_assert_int_eq(bcache_fetch(f.cache, &f.key, f.out, 0644), 0);
    free(whole);
    bcache_key_free(&f.key);
    harness_remove_tree(f.dir);
}
END_TEST

/* A cache directory that is a link, or not writable: off, never followed; one that others may
 * read is made the grader's alone again. */
START_TEST(unusable_dir_is_off)
{
    char dir[512], link[600], file[600];
    harness_scratch_dir("bcache", dir, sizeof dir);
    snprintf(file, sizeof file, "%s/open", dir);
    ck_assert_int_eq(mkdir(file, 0755), 0);
    ck_assert_int_eq(chmod(file, 0755), 0);
    ck_assert_int_eq(bcache_open(file), 1);
    struct stat st;
    ck_assert_int_eq(stat(file, &st), 0);
    ck_assert_msg((st.st_mode & 0777) == 0700, "%s: mode %o, expected 0700", file, st.st_mode & 0777);
    snprintf(link, sizeof link, "%s/link", dir);
    ck_assert_int_eq(symlink(dir, link), 0);
    ck_assert_int_eq(bcache_open(link), 0);
    snprintf(file, sizeof file, "%s/file", dir);
    spit(file, "x", 1);
    ck_assert_int_eq(bcache_open(file), 0);
    snprintf(file, sizeof file, "/nonexistent/cache");
    ck_assert_int_eq(bcache_open(file), 0);
    harness_remove_tree(dir);
}
END_TEST


static size_t count_entries(const char *dir, unsigned long long *bytes)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    size_t n = 0;
    *bytes = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char path[1200];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' && stat(path, &st) == 0)
            n++, *bytes += (unsigned long long)st.st_size;
    }
    closedir(d);
    return n;
}

/* An output over BCACHE_ENTRY_MAX is never kept; trimming removes the least recently used
 * entries (a fetch is a use) until the cap holds, and keeps the rest intact. */
START_TEST(capped_and_trimmed)
{
    Fixture big;
    fixture(&big, "huge object", (size_t)BCACHE_ENTRY_MAX + 1);
    bcache_store(big.cache, &big.key, big.made);
    unsigned long long bytes;
    ck_assert_uint_eq(count_entries(big.cache, &bytes), 0);
    ck_assert_int_eq(bcache_fetch(big.cache, &big.key, big.out, 0644), 0);
    /* three entries of 1 MiB each in one cache, stored a, b, c; then a is used again */
    Fixture e[3];
    const char *src[3] = { "a", "b", "c" };
    for (int i = 0; i < 3; i++) {
        fixture(&e[i], src[i], 1 << 20);
        bcache_store(big.cache, &e[i].key, e[i].made);
        struct timespec t[2] = { { .tv_sec = 1000 + i }, { .tv_sec = 1000 + i } };
        char path[1200];
        ck_assert_uint_eq(count_entries(big.cache, &bytes), (size_t)i + 1);
        /* the entry just stored is the newest file: date it, so the order does not hang on
         * the file system's clock resolution */
        DIR *d = opendir(big.cache);
        for (struct dirent *x; (x = readdir(d));) {
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", big.cache, x->d_name);
            if (x->d_name[0] != '.' && stat(path, &st) == 0 && st.st_mtim.tv_sec > 5000)
                ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
        }
        closedir(d);
    }
    ck_assert_int_eq(bcache_fetch(big.cache, &e[0].key, e[0].out, 0644), 1);   /* a: now the newest */
    unsigned long long left = bcache_trim(big.cache, 3ull << 19);   /* 1.5 MiB: two must go */
    ck_assert_uint_eq(count_entries(big.cache, &bytes), 1);
    ck_assert_uint_eq(bytes, left);
    ck_assert_int_eq(bcache_fetch(big.cache, &e[1].key, e[1].out, 0644), 0);   /* b: oldest, gone */
    ck_assert_int_eq(bcache_fetch(big.cache, &e[2].key, e[2].out, 0644), 0);   /* c: gone next */
    ck_assert_int_eq(bcache_fetch(big.cache, &e[0].key, e[0].out, 0644), 1);
    assert_same_file(e[0].made, e[0].out);
    ck_assert_uint_eq(bcache_trim(big.cache, 1ull << 30), bytes);   /* under the cap: nothing goes */
    ck_assert_uint_eq(count_entries(big.cache, &bytes), 1);
    for (int i = 0; i < 3; i++) {
        bcache_key_free(&e[i].key);
        harness_remove_tree(e[i].dir);
    }
    bcache_key_free(&big.key);
    harness_remove_tree(big.dir);
}
END_TEST

static Suite *buildcache_suite(void)
{
    Suite *s = suite_create("buildcache");
    TCase *t = tcase_create("entries");
    tcase_add_test(t, round_trip);
    tcase_add_test(t, other_key_misses);
    tcase_add_test(t, collision);
    tcase_add_test(t, damaged_entry_misses);
    tcase_add_test(t, unusable_dir_is_off);
    tcase_add_test(t, capped_and_trimmed);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return harness_run(buildcache_suite());
}
