#!/usr/bin/env python3
"""disguise.py SRC_DIR DST_DIR KIT_HEADERS_DIR — a copier's disguise of a submission, for make check-class.

flipkit tests/class/: every stage file of SRC_DIR written to DST_DIR with its comments gone, every
identifier the file itself declares (locals, parameters, static helpers) renamed, and its top-level
functions in reverse order (prototypes of the static ones first). The kit's names (types, functions,
macros and enum constants of common/*.h, struct fields after . or ->, libc) stay, or it would not
compile. One comment holding hostile markup goes into each function body that was renamed, so the
class page's side-by-side view shows it as text.
"""
import os
import re
import sys

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef union
unsigned void volatile while _Bool bool true false""".split())
LIBC = set("""memset memcpy memmove size_t NULL sqrtf fabsf floorf ceilf fminf fmaxf powf expf isfinite
uint8_t int8_t uint16_t int16_t uint32_t int32_t uint64_t int64_t""".split())
HOSTILE = "/* <img src=x onerror=alert(1)> $(touch x) */"
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|^[ \t]*#[^\n]*'
                   r'|\.?\d[\w.]*|[A-Za-z_]\w*|->|\.\.\.|\.|\S|\s+', re.S | re.M)


def kit_names(headers):
    """Names a stage file may not rename: functions, types, macros and constants of the kit."""
    keep = set(LIBC)
    for name in os.listdir(headers):
        if not name.endswith(".h"):
            continue
        text = re.sub(r'//[^\n]*|/\*.*?\*/', ' ', open(os.path.join(headers, name)).read(), flags=re.S)
        keep.update(re.findall(r'\b([A-Za-z_]\w*)\s*\(', text))          # functions, macros
        keep.update(re.findall(r'#\s*define\s+(\w+)', text))
        keep.update(re.findall(r'\b([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\b', text))  # MacGrid, Vec3
        keep.update(re.findall(r'\b([A-Z][A-Z0-9_]+)\b', text))         # CELL_FLUID, STAGE_COUNT
    return keep - C_KEYWORDS


def member_names(text):
    """Names read after . or -> in the file: a struct the file declares keeps its fields' names,
    or its own member accesses would not compile (the renamer leaves those alone)."""
    return set(re.findall(r'(?:\.|->)\s*([A-Za-z_]\w*)', text))


def rename(text, keep):
    keep = keep | member_names(text)
    out, names, prev = [], {}, ""
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith("//") or tok.startswith("/*"):
            continue                                                  # comments go
        if re.fullmatch(r'[A-Za-z_]\w*', tok) and tok not in C_KEYWORDS and tok not in keep \
                and prev not in (".", "->"):
            tok = names.setdefault(tok, "q%02d_%s" % (len(names) + 1, "xyzw"[len(names) % 4]))
        if not tok.isspace():
            prev = tok
        out.append(tok)
    return "".join(out)


def top_level_items(text):
    """The text cut at depth 0 after each ';', '}' closing a body, or preprocessor line."""
    items, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '#' and depth == 0 and (i == 0 or text[i - 1] == '\n'):
            end = text.find('\n', i)
            end = len(text) if end < 0 else end + 1
            items.append(text[start:end]); start = i = end
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0 and not text[start:i].lstrip().startswith(("typedef", "struct", "enum", "static const")):
                items.append(text[start:i + 1]); start = i + 1
        elif c == ';' and depth == 0:
            items.append(text[start:i + 1]); start = i + 1
        i += 1
    items.append(text[start:])
    return items


def is_function(item):
    head = item.split('{', 1)[0]
    return '{' in item and '(' in head and '=' not in head


def reorder(text):
    items = top_level_items(text)
    funcs = [it for it in items if is_function(it)]
    rest = [it for it in items if not is_function(it)]
    protos = [it.split('{', 1)[0].strip() + ";\n" for it in funcs if it.lstrip().startswith("static")]
    bodies = []
    for f in reversed(funcs):
        head, body = f.split('{', 1)
        bodies.append("\n" + head.strip() + "\n{\n    " + HOSTILE + body.rstrip() + "\n")
    return "".join(rest).rstrip() + "\n\n" + "".join(protos) + "".join(bodies)


def main():
    src, dst, headers = sys.argv[1:4]
    keep = kit_names(headers)
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if name.endswith(".c"):
            text = open(os.path.join(src, name)).read()
            open(os.path.join(dst, name), "w").write(reorder(rename(text, keep)))


if __name__ == "__main__":
    main()
