/* escape.c — a student's bytes as text that cannot act on a terminal or a reader.
 * flipkit grader/: one escaping for logs, names and reasons, so a control byte looks the same
 * wherever it is shown (escape.h says which bytes and how). */
#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF), or 0 when the byte at s does not start one. */
static size_t esc_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char b = s[0], lo = 0x80, hi = 0xBF;
    size_t len;
    if (b < 0x80)
        return 1;
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
        len = 3;
        lo = b == 0xE0 ? 0xA0 : 0x80;
        hi = b == 0xED ? 0x9F : 0xBF;
    } else if (b >= 0xF0 && b <= 0xF4) {
        len = 4;
        lo = b == 0xF0 ? 0x90 : 0x80;
        hi = b == 0xF4 ? 0x8F : 0xBF;
    } else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return len;
}

/* The code point of a well-formed sequence of k bytes. */
static unsigned long esc_code_point(const unsigned char *s, size_t k)
{
    static const unsigned char lead_mask[] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
    unsigned long cp = s[0] & lead_mask[k];
    for (size_t i = 1; i < k; i++)
        cp = cp << 6 | (s[i] & 0x3F);
    return cp;
}

static bool esc_is_bidi(unsigned long cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* The text for the character of k bytes at s (k 0: a stray byte), in out; its length. */
static size_t esc_one(const unsigned char *s, size_t k, unsigned flags, char out[16])
{
    if (k == 0)
        return (size_t)snprintf(out, 16, "\\x%02x", s[0]);
    if (k == 1) {
        unsigned char c = s[0];
        if (c == '\n' && (flags & ESCAPE_KEEP_NEWLINES))
            return out[0] = '\n', 1;
        const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : c == '\\' ? "\\\\" : NULL;
        if (named)
            return (size_t)snprintf(out, 16, "%s", named);
        if (c < 0x20 || c == 0x7F)
            return (size_t)snprintf(out, 16, "\\x%02x", c);
        return out[0] = (char)c, 1;
    }
    unsigned long cp = esc_code_point(s, k);
    if (cp >= 0x80 && cp < 0xA0) /* C1 controls, CSI (U+009B) among them */
        return (size_t)snprintf(out, 16, "\\x%02x\\x%02x", s[0], s[1]);
    if (esc_is_bidi(cp))
        return (size_t)snprintf(out, 16, "\\u%04lx", cp);
    memcpy(out, s, k);
    return k;
}

size_t escape_char(const char *src, size_t len, unsigned flags, char out[16], size_t *used)
{
    const unsigned char *u = (const unsigned char *)src;
    size_t k = esc_utf8_len(u, len);
    *used = k ? k : 1;
    return esc_one(u, k, flags, out);
}

size_t escape_text(char *dst, size_t cap, const char *src, size_t len, unsigned flags)
{
    if (cap == 0)
        return 0;
    size_t n = 0, mark = 0; /* mark: where "..." goes if the rest does not fit */
    for (size_t i = 0, k; i < len; i += k) {
        char one[16];
        size_t m = escape_char(src + i, len - i, flags, one, &k);
        if (n + m + 1 > cap) {
            n = mark;
            memcpy(dst + n, "...", cap - 1 - n < 3 ? cap - 1 - n : 3);
            n += cap - 1 - n < 3 ? cap - 1 - n : 3;
            break;
        }
        memcpy(dst + n, one, m);
        n += m;
        if (n + 3 + 1 <= cap)
            mark = n;
    }
    dst[n] = '\0';
    return n;
}

char *escape_dup(const char *src, size_t len, size_t max_bytes, unsigned flags, bool *cut)
{
    size_t need = 0;
    for (size_t i = 0, k; i < len && need <= max_bytes; i += k) {
        char one[16];
        need += escape_char(src + i, len - i, flags, one, &k);
    }
    size_t cap = (need < max_bytes ? need : max_bytes) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    size_t n = escape_text(out, cap, src, len, flags);
    if (cut)
        *cut = need > n;
    return out;
}

bool escape_safe_name(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 64 || name[0] == '-' || name[0] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok)
            return false;
    }
    return true;
}
