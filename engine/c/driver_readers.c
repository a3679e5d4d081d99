/* ---------------------------------------------------------------------------
 * The driver's readers and writer (src/cli/driver.rs concatenates this after
 * driver_runtime.c): Matrix Market and FROSTT coordinates, JSON instances in
 * and out.
 * ------------------------------------------------------------------------- */

/* ----- coordinates -------------------------------------------------------- */

/* Entries in file order, duplicates summed into the first occurrence. */
typedef struct {
    int order;
    int64_t dims[DRV_MAX_FIELDS];
    int64_t n, cap;
    int64_t *idx; /* n * order indices, 0-based */
    double *val;
    int64_t *line; /* the line of each entry's first occurrence */
    const char *path;
    int64_t *table; /* open addressing: entry + 1, 0 when empty */
    int64_t tcap;
    /* The first error of the entries together (a sum beyond the range of a
     * double, a symmetric file's mirrored entry), reported once every line
     * was read, as spf's reader finds it after the body: its line, column
     * and message. */
    int64_t err_line, err_col;
    char *err;
    /* Entries numbered in an array (an .npz archive), not by line. */
    int by_entry;
} drv_coords;

/* Keeps the error at line:col unless an earlier one is kept. */
static void drv_coords_defer(drv_coords *c, int64_t line, int64_t col, const char *fmt, ...)
    DRV_PRINTF(4, 5);

static DRV_UNUSED void drv_coords_defer(drv_coords *c, int64_t line, int64_t col, const char *fmt,
                                        ...)
{
    va_list ap;
    int n;
    if (c->err != NULL)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    c->err = drv_alloc(n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(c->err, (size_t)n + 1, fmt, ap);
    va_end(ap);
    c->err_line = line;
    c->err_col = col;
}

/* Reports the kept error, if any. */
static DRV_UNUSED void drv_coords_report(const drv_coords *c)
{
    if (c->err != NULL && c->by_entry)
        drv_die("%s: %s", c->path, c->err);
    if (c->err != NULL)
        drv_located(c->path, c->err_line, c->err_col, "%s", c->err);
}

static DRV_UNUSED uint64_t drv_hash(const int64_t *idx, int order)
{
    uint64_t h = 0x9E3779B97F4A7C15u;
    int d;
    for (d = 0; d < order; d++) {
        h ^= (uint64_t)idx[d] + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9u;
        h ^= h >> 31;
    }
    return h;
}

static DRV_UNUSED void drv_coords_rehash(drv_coords *c, int64_t tcap)
{
    int64_t e;
    free(c->table);
    c->tcap = tcap;
    c->table = drv_alloc(tcap, sizeof *c->table);
    for (e = 0; e < c->n; e++) {
        uint64_t h = drv_hash(c->idx + e * c->order, c->order) & (uint64_t)(tcap - 1);
        while (c->table[h] != 0)
            h = (h + 1) & (uint64_t)(tcap - 1);
        c->table[h] = e + 1;
    }
}

/* Adds the entry of `line` (a duplicate summed into the first occurrence;
 * a sum beyond the range of a double is an error at that line, deferred). */
static DRV_UNUSED void drv_coords_add(drv_coords *c, const int64_t *idx, double v, int64_t line)
{
    uint64_t h;
    if (2 * (c->n + 1) > c->tcap)
        drv_coords_rehash(c, c->tcap ? 2 * c->tcap : 1024);
    h = drv_hash(idx, c->order) & (uint64_t)(c->tcap - 1);
    while (c->table[h] != 0) {
        int64_t e = c->table[h] - 1;
        if (memcmp(c->idx + e * c->order, idx, (size_t)c->order * sizeof *idx) == 0) {
            const double sum = c->val[e] + v;
            if (!isfinite(sum) && isfinite(c->val[e]) && isfinite(v)) {
                char at[512];
                int d, used = 0;
                at[0] = '\0';
                for (d = 0; d < c->order && used < (int)sizeof at; d++)
                    used += snprintf(at + used, sizeof at - (size_t)used, d ? ", %lld" : "%lld",
                                     (long long)idx[d] + 1);
                drv_coords_defer(c, line, 1,
                                 "the entries at (%s) %s %lld and %lld sum to %s, beyond the "
                                 "range of a double",
                                 at, c->by_entry ? "numbered" : "on lines",
                                 (long long)c->line[e], (long long)line,
                                 sum > 0 ? "inf" : "-inf");
            }
            c->val[e] = sum;
            return;
        }
        h = (h + 1) & (uint64_t)(c->tcap - 1);
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->idx = drv_grow(c->idx, c->cap * c->order, sizeof *c->idx);
        c->val = drv_grow(c->val, c->cap, sizeof *c->val);
        c->line = drv_grow(c->line, c->cap, sizeof *c->line);
    }
    memcpy(c->idx + c->n * c->order, idx, (size_t)c->order * sizeof *idx);
    c->val[c->n] = v;
    c->line[c->n] = line;
    c->table[h] = ++c->n;
}

static DRV_UNUSED void drv_coords_free(drv_coords *c)
{
    free(c->idx);
    free(c->val);
    free(c->line);
    free(c->table);
    free(c->err);
    memset(c, 0, sizeof *c);
}

/* The position + 1 of the entry at idx, 0 when there is none. */
static DRV_UNUSED int64_t drv_coords_find(const drv_coords *c, const int64_t *idx)
{
    uint64_t h;
    if (c->tcap == 0)
        return 0;
    h = drv_hash(idx, c->order) & (uint64_t)(c->tcap - 1);
    while (c->table[h] != 0) {
        int64_t e = c->table[h] - 1;
        if (memcmp(c->idx + e * c->order, idx, (size_t)c->order * sizeof *idx) == 0)
            return e + 1;
        h = (h + 1) & (uint64_t)(c->tcap - 1);
    }
    return 0;
}

static DRV_UNUSED int64_t drv_int_field(const char *path, int64_t line, drv_field f, const char *what)
{
    int64_t v = 0;
    int r = drv_parse_i64(f, &v);
    if (r == 1)
        drv_located(path, line, f.col, "%s `%s` is not an integer", what, drv_text(f));
    if (r == 2)
        drv_located(path, line, f.col, "%s `%s` does not fit in a 64-bit integer", what,
                    drv_text(f));
    return v;
}

/* Whether values that are not finite are read (--allow-nonfinite), as spf
 * reads them with the flag; refused, naming it, otherwise. */
static DRV_UNUSED int drv_allow_nonfinite = 0;

static DRV_UNUSED double drv_real_field(const char *path, int64_t line, drv_field f, const char *what)
{
    double v = 0.0;
    int r = drv_parse_f64(f, &v);
    if (r == 1)
        drv_located(path, line, f.col, "%s `%s` is not a number", what, drv_text(f));
    if (r == 2 && !drv_allow_nonfinite)
        drv_located(path, line, f.col,
                    "%s `%s` is not a finite number (NaN and infinities are accepted with "
                    "--allow-nonfinite, allow_nonfinite in the library and Python)",
                    what, drv_text(f));
    return v;
}

/* A 1-based index within 1..=extent (extent < 0: unknown), 0-based. */
static DRV_UNUSED int64_t drv_index_field(const char *path, int64_t line, drv_field f, const char *what,
                               int64_t extent, const char *format)
{
    int64_t i = drv_int_field(path, line, f, what);
    char range[64];
    if (i >= 1 && (extent < 0 || i <= extent))
        return i - 1;
    if (extent >= 0)
        snprintf(range, sizeof range, "out of range 1..=%lld", (long long)extent);
    else
        snprintf(range, sizeof range, "below 1");
    if (i == 0)
        drv_located(path, line, f.col,
                    "%s 0 is %s: %s indices are 1-based, and this one looks 0-based", what, range,
                    format);
    drv_located(path, line, f.col, "%s %lld is %s", what, (long long)i, range);
    return 0;
}

/* Refuses a text that is not UTF-8, as spf's reader does: at the line and
 * column (in characters) of the first byte of the first invalid sequence
 * (overlong forms, surrogates and code points beyond U+10FFFF included). */
static DRV_UNUSED void drv_check_utf8(const char *path, const char *text, size_t len)
{
    const unsigned char *u = (const unsigned char *)text;
    size_t k = 0;
    while (k < len) {
        unsigned c = u[k];
        size_t n = c < 0x80 ? 0 : c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2
                                                     : c >= 0xF0 && c <= 0xF4 ? 3
                                                                              : 4;
        size_t m;
        int ok = n < 4 && k + n < len;
        for (m = 1; ok && m <= n; m++) {
            unsigned b = u[k + m];
            unsigned lo = 0x80, hi = 0xBF;
            if (m == 1 && c == 0xE0)
                lo = 0xA0;
            else if (m == 1 && c == 0xED)
                hi = 0x9F;
            else if (m == 1 && c == 0xF0)
                lo = 0x90;
            else if (m == 1 && c == 0xF4)
                hi = 0x8F;
            ok = b >= lo && b <= hi;
        }
        if (!ok) {
            int64_t line, col;
            drv_end_position(text, text + k, &line, &col);
            drv_located(path, line, col, "the file is not valid UTF-8 text");
        }
        k += n + 1;
    }
}

/* Where a Matrix Market file's header ends: after the banner line, the
 * comment and blank lines that follow it, and the size line (the end of
 * the text when it ends before). spf's reader checks the header to be
 * UTF-8 before it reads it, and the rest before the body. */
static DRV_UNUSED size_t drv_mtx_header_end(const char *text, size_t len)
{
    const char *p = text, *end = text + len, *s, *e;
    int done = 0;
    drv_next_line(&p, end, &done, &s, &e);
    while (drv_next_line(&p, end, &done, &s, &e)) {
        while (s < e && drv_space(*s))
            s++;
        if (s < e && *s != '%')
            break;
    }
    return (size_t)(p - text);
}

#define DRV_BANNER_HELP                                                                   \
    "`%%%%MatrixMarket matrix coordinate|array real|integer|pattern "                      \
    "general|symmetric|skew-symmetric`"

static DRV_UNUSED int drv_field_is(drv_field f, const char *word)
{
    return strlen(word) == f.n && drv_same_name(drv_text(f), word);
}

/* What an input holds, told by its content as spf convert tells it
 * (synth::tensor_io::kind::sniff): a Matrix Market file by its banner, a
 * JSON instance by its first byte that is not whitespace, an .npz archive
 * by the zip signature, a FROSTT file otherwise (gzip is decompressed
 * before, drv_gunzip). */
enum drv_kind { DRV_MTX, DRV_TNS, DRV_JSON, DRV_NPZ };

static DRV_UNUSED int drv_is_gzip(const char *text, size_t len)
{
    return len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b;
}

static DRV_UNUSED enum drv_kind drv_kind_of(const char *text, size_t len)
{
    size_t k = 0, b = 0;
    if (len >= 4 && (memcmp(text, "PK\x03\x04", 4) == 0 || memcmp(text, "PK\x05\x06", 4) == 0))
        return DRV_NPZ;
    /* as synth::tensor_io::kind::sniff: a byte-order mark skipped, the
     * banner in any case, JSON by a `{` */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        b = 3;
    if (len - b >= 14) {
        static const char banner[] = "%%matrixmarket";
        size_t i = 0;
        while (i < 14 && tolower((unsigned char)text[b + i]) == banner[i])
            i++;
        if (i == 14)
            return DRV_MTX;
    }
    k = b;
    while (k < len && drv_space(text[k]))
        k++;
    if (k < len && text[k] == '{')
        return DRV_JSON;
    return DRV_TNS;
}

/* Reads a Matrix Market file (coordinate or array; real, integer or
 * pattern; general, symmetric or skew-symmetric, expanded to both
 * triangles, the mirror negated when skew), as spf's reader does. */
static DRV_UNUSED void drv_read_mtx(const char *path, char *text, size_t len, drv_coords *c)
{
    const char *p = text, *end = text + len, *s, *e;
    /* field_kind: 0 real, 1 integer, 2 pattern; kind: 0 general, 1
     * symmetric, 2 skew-symmetric */
    int done = 0, field_kind = 0, kind = 0, array = 0, fields_wanted, nsize;
    int64_t number = 0, counts[3], read = 0, k, ai = 0, aj = 0;
    drv_line l, size;
    drv_coords given; /* a symmetric file's off-diagonal entries as given, val = line */
    const char *layout, *what;
    memset(c, 0, sizeof *c);
    c->order = 2;
    memset(&given, 0, sizeof given);
    given.order = 2;
    c->path = given.path = path;
    drv_check_utf8(path, text, drv_mtx_header_end(text, len));
    /* The banner, first in the file (spf tells a Matrix Market file by
     * it). */
    drv_next_line(&p, end, &done, &s, &e);
    number = 1;
    drv_split(s, e, 1, &l);
    if (l.count == 0 || !drv_field_is(l.f[0], "%%MatrixMarket") || l.f[0].col != 1)
        drv_located(path, 1, l.count ? l.f[0].col : 1,
                    "the file does not start with the Matrix Market banner " DRV_BANNER_HELP);
    if (l.count < 2)
        drv_located(path, 1, l.end_col,
                    "the banner ends before the object (`matrix`); expected " DRV_BANNER_HELP);
    if (!drv_field_is(l.f[1], "matrix"))
        drv_located(path, 1, l.f[1].col,
                    "unsupported Matrix Market object `%s`; only `matrix` is supported",
                    drv_text(l.f[1]));
    if (l.count < 3)
        drv_located(path, 1, l.end_col,
                    "the banner ends before the format (`coordinate` or `array`); expected "
                    DRV_BANNER_HELP);
    if (drv_field_is(l.f[2], "array"))
        array = 1;
    else if (!drv_field_is(l.f[2], "coordinate"))
        drv_located(path, 1, l.f[2].col,
                    "unknown Matrix Market format `%s`; expected `coordinate` or `array`",
                    drv_text(l.f[2]));
    if (l.count < 4)
        drv_located(path, 1, l.end_col,
                    "the banner ends before the field (real, integer or pattern); expected "
                    DRV_BANNER_HELP);
    if (drv_field_is(l.f[3], "real") || drv_field_is(l.f[3], "double"))
        field_kind = 0;
    else if (drv_field_is(l.f[3], "integer"))
        field_kind = 1;
    else if (drv_field_is(l.f[3], "pattern") && array)
        drv_located(path, 1, l.f[3].col,
                    "a dense `array` file has a value for every position; `pattern` is for "
                    "`coordinate` files");
    else if (drv_field_is(l.f[3], "pattern"))
        field_kind = 2;
    else if (drv_field_is(l.f[3], "complex"))
        drv_located(path, 1, l.f[3].col,
                    "complex matrices are not supported; the field must be real, integer or "
                    "pattern");
    else
        drv_located(path, 1, l.f[3].col, "unknown field `%s`; expected real, integer or pattern",
                    drv_text(l.f[3]));
    if (l.count < 5)
        drv_located(path, 1, l.end_col,
                    "the banner ends before the symmetry (general, symmetric or "
                    "skew-symmetric); expected " DRV_BANNER_HELP);
    if (drv_field_is(l.f[4], "general"))
        kind = 0;
    else if (drv_field_is(l.f[4], "symmetric"))
        kind = 1;
    else if (drv_field_is(l.f[4], "skew-symmetric") && field_kind == 2)
        drv_located(path, 1, l.f[4].col,
                    "a `pattern` matrix cannot be skew-symmetric: it has no values to negate");
    else if (drv_field_is(l.f[4], "skew-symmetric"))
        kind = 2;
    else if (drv_field_is(l.f[4], "hermitian"))
        drv_located(path, 1, l.f[4].col,
                    "hermitian matrices are not supported (they are complex); the symmetry must "
                    "be general, symmetric or skew-symmetric");
    else
        drv_located(path, 1, l.f[4].col,
                    "unknown symmetry `%s`; expected general, symmetric or skew-symmetric",
                    drv_text(l.f[4]));
    if (l.count > 5)
        drv_located(path, 1, l.f[5].col, "unexpected `%s` after the banner's symmetry",
                    drv_text(l.f[5]));
    /* The size line. */
    for (;;) {
        if (!drv_next_line(&p, end, &done, &s, &e)) {
            int64_t el, ec;
            drv_end_position(text, end, &el, &ec);
            drv_located(path, el, ec, "the file ends before the size line (%s)",
                        array ? "`rows columns`" : "`rows columns entries`");
        }
        number++;
        drv_split(s, e, number, &size);
        if (size.count > 0 && size.f[0].p[0] != '%')
            break;
    }
    nsize = array ? 2 : 3;
    {
        static const char *const names[3] = {"number of rows", "number of columns",
                                             "number of entries"};
        for (k = 0; k < nsize; k++) {
            if (k >= size.count)
                drv_located(path, size.number, size.end_col, "the size line needs %s but has %d",
                            array ? "2 fields (rows, columns)"
                                  : "3 fields (rows, columns, entries)",
                            size.count);
            counts[k] = drv_int_field(path, size.number, size.f[k], names[k]);
            if (counts[k] < 0)
                drv_located(path, size.number, size.f[k].col, "%s %lld is negative", names[k],
                            (long long)counts[k]);
        }
    }
    if (size.count > nsize)
        drv_located(path, size.number, size.f[nsize].col,
                    "unexpected `%s` after the number of %s; the size line of %s fields",
                    drv_text(size.f[nsize]), array ? "columns" : "entries",
                    array ? "an array matrix has 2" : "a coordinate matrix has 3");
    if (kind != 0 && counts[0] != counts[1])
        drv_located(path, size.number, size.f[0].col,
                    "a %s matrix must be square, but this one is %lld \xC3\x97 %lld",
                    kind == 1 ? "symmetric" : "skew-symmetric", (long long)counts[0],
                    (long long)counts[1]);
    if (array) {
        /* The values listed: all, or the lower triangle (strictly, when
         * skew), column by column. */
        int64_t r = counts[0], n2;
        int over = kind == 0 ? __builtin_mul_overflow(r, counts[1], &n2)
                             : __builtin_mul_overflow(r, kind == 1 ? r + 1 : (r > 0 ? r - 1 : 0), &n2);
        if (over)
            drv_located(path, size.number, size.f[0].col,
                        "a dense %lld \xC3\x97 %lld matrix is too large to read",
                        (long long)counts[0], (long long)counts[1]);
        counts[2] = kind == 0 ? n2 : n2 / 2;
        ai = kind == 2 ? 1 : 0;
    }
    c->dims[0] = counts[0];
    c->dims[1] = counts[1];
    drv_check_utf8(path, text, len);
    fields_wanted = field_kind == 2 ? 2 : 3;
    layout = field_kind == 2 ? "`row column`" : "`row column value`";
    what = array ? "values" : "entries";
    while (drv_next_line(&p, end, &done, &s, &e)) {
        int64_t idx[2], mirror[2];
        double v;
        number++;
        drv_split(s, e, number, &l);
        if (l.count == 0 || l.f[0].p[0] == '%')
            continue;
        if (read == counts[2])
            drv_located(path, number, l.f[0].col, "more %s than the %lld announced on line %lld",
                        what, (long long)counts[2], (long long)size.number);
        if (array) {
            v = field_kind == 1 ? (double)drv_int_field(path, number, l.f[0], "integer value")
                                : drv_real_field(path, number, l.f[0], "value");
            if (l.count > 1)
                drv_located(path, number, l.f[1].col,
                            "unexpected field `%s`: a line of an array file holds one value",
                            drv_text(l.f[1]));
            idx[0] = ai;
            idx[1] = aj;
            read++;
            ai++;
            while (ai >= counts[0] && aj < counts[1]) {
                aj++;
                ai = kind == 0 ? 0 : (kind == 1 ? aj : aj + 1);
            }
            /* Explicit zeros of a dense matrix are not entries. */
            if (v == 0.0)
                continue;
        } else {
            idx[0] = drv_index_field(path, number, l.f[0], "row index", counts[0],
                                     "Matrix Market");
            if (l.count < 2)
                drv_located(path, number, l.end_col, "missing column index: an entry is %s",
                            layout);
            idx[1] = drv_index_field(path, number, l.f[1], "column index", counts[1],
                                     "Matrix Market");
            if (field_kind == 2) {
                v = 1.0;
            } else {
                if (l.count < 3)
                    drv_located(path, number, l.end_col, "missing value: an entry is %s", layout);
                if (field_kind == 0)
                    v = drv_real_field(path, number, l.f[2], "value");
                else
                    v = (double)drv_int_field(path, number, l.f[2], "integer value");
            }
            if (l.count > fields_wanted)
                drv_located(path, number, l.f[fields_wanted].col,
                            "unexpected field `%s`: an entry is %s", drv_text(l.f[fields_wanted]),
                            layout);
            if (kind == 2 && idx[0] == idx[1])
                drv_located(path, number, l.f[0].col,
                            "entry (%lld, %lld) is on the diagonal, which a skew-symmetric matrix "
                            "has zero and its file does not list",
                            (long long)idx[0] + 1, (long long)idx[1] + 1);
            read++;
        }
        mirror[0] = idx[1];
        mirror[1] = idx[0];
        if (kind != 0 && idx[0] != idx[1] && !array) {
            /* A symmetric file lists one triangle; an entry whose mirror the
             * file also gives would be summed into both positions. */
            int64_t at = drv_coords_find(&given, mirror);
            if (at != 0)
                drv_coords_defer(c, number, l.f[0].col,
                                 "entry (%lld, %lld) mirrors the entry (%lld, %lld) of line %lld: a "
                                 "symmetric file lists one triangle, and expanding both would add "
                                 "them into both positions; keep one of them, or declare the "
                                 "matrix general",
                                 (long long)idx[0] + 1, (long long)idx[1] + 1,
                                 (long long)idx[1] + 1, (long long)idx[0] + 1,
                                 (long long)given.val[at - 1]);
            if (drv_coords_find(&given, idx) == 0)
                drv_coords_add(&given, idx, (double)number, number);
        }
        drv_coords_add(c, idx, v, number);
        if (kind != 0 && idx[0] != idx[1]) {
            /* The mirror holds the triangle's sum (negated when skew), as
             * spf's reader sums a file's duplicates before it mirrors them:
             * -(0 + -0) is -0, not -0 + 0. */
            const int64_t at = drv_coords_find(c, idx), back = drv_coords_find(c, mirror);
            const double m = kind == 2 ? -c->val[at - 1] : c->val[at - 1];
            if (back == 0)
                drv_coords_add(c, mirror, m, number);
            else
                c->val[back - 1] = m;
        }
    }
    drv_coords_free(&given);
    if (read < counts[2]) {
        int64_t el, ec;
        drv_end_position(text, end, &el, &ec);
        drv_located(path, el, ec, "the file ends after %lld of the %lld %s announced on line %lld",
                    (long long)read, (long long)counts[2], what, (long long)size.number);
    }
    drv_coords_report(c);
    free(text);
}

/* Reads a FROSTT file: 1-based indices then the value; `#` comments; the
 * extents are the largest indices. */
static DRV_UNUSED void drv_read_tns(const char *path, char *text, size_t len, drv_coords *c)
{
    const char *p = text, *end = text + len, *s, *e;
    int done = 0, m = -1, d;
    int64_t number = 0, first_line = 0;
    drv_line l;
    memset(c, 0, sizeof *c);
    c->path = path;
    drv_check_utf8(path, text, len);
    while (drv_next_line(&p, end, &done, &s, &e)) {
        const char *hash = memchr(s, '#', (size_t)(e - s));
        int n;
        int64_t idx[DRV_MAX_FIELDS];
        number++;
        drv_split(s, hash ? hash : e, number, &l);
        if (l.count == 0)
            continue;
        n = l.count - 1;
        if (m < 0) {
            if (n == 0)
                drv_located(path, number, l.end_col,
                            "an entry needs at least one index and a value");
            if (n >= DRV_MAX_FIELDS)
                drv_located(path, number, l.f[0].col, "this entry has %d indices; at most %d are supported",
                            n, DRV_MAX_FIELDS - 1);
            m = n;
            first_line = number;
            c->order = m;
        }
        if (n != m)
            drv_located(path, number, n > m ? l.f[m + 1].col : l.end_col,
                        "this entry has %d indices and a value but the first entry (line %lld) has %d",
                        n, (long long)first_line, m);
        for (d = 0; d < m; d++) {
            char what[64];
            snprintf(what, sizeof what, "index of mode %d", d + 1);
            idx[d] = drv_index_field(path, number, l.f[d], what, -1, "FROSTT");
            if (idx[d] + 1 > c->dims[d])
                c->dims[d] = idx[d] + 1;
        }
        drv_coords_add(c, idx, drv_real_field(path, number, l.f[m], "value"), number);
    }
    if (m < 0)
        drv_located(path, 1, 1,
                    "the file is empty: it lists no entries, and a FROSTT file tells its number "
                    "of modes and its extents only by its entries");
    drv_coords_report(c);
    free(text);
}

/* The coordinates as an instance of a COO format: its dense symbols are the
 * extents, `count` the number of entries, one index array per dimension. */
static DRV_UNUSED void drv_coo_instance(drv_coords *c, drv_inst *x, const char *format,
                             const char *const *dims, const char *const *index, const char *count,
                             const char *values)
{
    int d;
    int64_t e;
    drv_inst_init(x, format);
    for (d = 0; d < c->order; d++)
        drv_set_symbol(x, dims[d], c->dims[d]);
    drv_set_symbol(x, count, c->n);
    for (d = 0; d < c->order; d++) {
        int64_t *a = drv_alloc(c->n, sizeof *a);
        for (e = 0; e < c->n; e++)
            a[e] = c->idx[e * c->order + d];
        drv_put_ints(x, index[d], a, c->n);
    }
    drv_put_reals(x, values, c->val, c->n);
    c->val = NULL;
    drv_coords_free(c);
}

/* ----- JSON instances ----------------------------------------------------- */

typedef struct {
    const char *path;
    const char *text, *p, *end, *line_start;
    int64_t line;
} drv_json;

static void drv_json_error(const drv_json *j, const char *fmt, ...) DRV_NORETURN DRV_PRINTF(2, 3);

static DRV_UNUSED void drv_json_error(const drv_json *j, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%lld:%lld: ", j->path, (long long)j->line,
            (long long)drv_chars(j->line_start, j->p) + 1);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

static DRV_UNUSED void drv_json_ws(drv_json *j)
{
    while (j->p < j->end) {
        char ch = *j->p;
        if (ch == '\n') {
            j->line++;
            j->line_start = j->p + 1;
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
            break;
        }
        j->p++;
    }
}

static DRV_UNUSED const char *drv_json_what(const drv_json *j)
{
    if (j->p >= j->end)
        return "the end of the file";
    switch (*j->p) {
    case '{':
        return "an object";
    case '[':
        return "an array";
    case '"':
        return "a string";
    case 't':
    case 'f':
        return "a boolean";
    case 'n':
        return "null";
    default:
        if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))
            return "a number";
        return "an unexpected character";
    }
}

static DRV_UNUSED void drv_json_expect(drv_json *j, char ch, const char *what)
{
    drv_json_ws(j);
    if (j->p >= j->end || *j->p != ch)
        drv_json_error(j, "invalid JSON: expected %s, found %s", what, drv_json_what(j));
    j->p++;
}

/* After a member or an element: `,` (more follow: 1, the blanks after it
 * skipped) or the closing `close` (the end: 0); anything else is an error. */
static DRV_UNUSED int drv_json_more(drv_json *j, char close)
{
    drv_json_ws(j);
    if (j->p < j->end && *j->p == ',') {
        j->p++;
        drv_json_ws(j);
        return 1;
    }
    drv_json_expect(j, close, close == '}' ? "`,` or `}`" : "`,` or `]`");
    return 0;
}

static DRV_UNUSED void drv_utf8(char **out, unsigned long cp)
{
    char *o = *out;
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    *out = o;
}

static DRV_UNUSED unsigned long drv_json_hex4(drv_json *j)
{
    unsigned long v = 0;
    int k;
    for (k = 0; k < 4; k++) {
        char ch = j->p < j->end ? *j->p : '\0';
        int d = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (d < 0)
            drv_json_error(j, "invalid JSON: invalid \\u escape");
        v = v * 16 + (unsigned long)d;
        j->p++;
    }
    return v;
}

/* A string (the opening quote is next); returns a new NUL-terminated copy. */
static DRV_UNUSED char *drv_json_string(drv_json *j)
{
    char *out, *o;
    const char *q;
    drv_json_expect(j, '"', "a string");
    for (q = j->p; q < j->end && *q != '"'; q++)
        if (*q == '\\' && q + 1 < j->end)
            q++;
    out = drv_alloc((int64_t)(q - j->p) + 1, 1);
    o = out;
    for (;;) {
        unsigned char ch;
        if (j->p >= j->end)
            drv_json_error(j, "invalid JSON: EOF while parsing a string");
        ch = (unsigned char)*j->p;
        if (ch == '"') {
            j->p++;
            break;
        }
        if (ch < 0x20)
            drv_json_error(j, "invalid JSON: control character in a string");
        if (ch != '\\') {
            *o++ = (char)ch;
            j->p++;
            continue;
        }
        j->p++;
        ch = j->p < j->end ? (unsigned char)*j->p : 0;
        j->p++;
        switch (ch) {
        case '"':
        case '\\':
        case '/':
            *o++ = (char)ch;
            break;
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'u': {
            unsigned long cp = drv_json_hex4(j);
            if (cp >= 0xD800 && cp < 0xDC00) {
                unsigned long lo;
                if (j->p + 1 >= j->end || j->p[0] != '\\' || j->p[1] != 'u')
                    drv_json_error(j, "invalid JSON: lone leading surrogate in a \\u escape");
                j->p += 2;
                lo = drv_json_hex4(j);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    drv_json_error(j, "invalid JSON: invalid \\u surrogate pair");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                drv_json_error(j, "invalid JSON: lone trailing surrogate in a \\u escape");
            }
            if (cp == 0)
                drv_json_error(j, "a NUL character in a name is not supported");
            drv_utf8(&o, cp);
            break;
        }
        default:
            j->p--;
            drv_json_error(j, "invalid JSON: invalid escape");
        }
    }
    *o = '\0';
    return out;
}

/* A number: returns 1 for an integer (*i), 0 for a real (*r), 2 for an
 * integer beyond 64 bits that fits 64 unsigned bits (*r; serde_json's
 * u64, which spf refuses in an array, where a longer one is a real). */
static DRV_UNUSED int drv_json_number(drv_json *j, int64_t *i, double *r)
{
    const char *s, *q;
    int integer = 1;
    drv_json_ws(j);
    s = q = j->p;
    if (q < j->end && *q == '-')
        q++;
    if (q >= j->end || *q < '0' || *q > '9')
        drv_json_error(j, "expected a number, found %s", drv_json_what(j));
    if (*q == '0')
        q++;
    else
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    if (q < j->end && *q == '.') {
        integer = 0;
        q++;
        if (q >= j->end || *q < '0' || *q > '9') {
            j->p = q;
            drv_json_error(j, "invalid JSON: invalid number");
        }
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        integer = 0;
        q++;
        if (q < j->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= j->end || *q < '0' || *q > '9') {
            j->p = q;
            drv_json_error(j, "invalid JSON: invalid number");
        }
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (integer) {
        drv_field f;
        f.p = s;
        f.n = (size_t)(q - s);
        f.col = 0;
        if (drv_parse_i64(f, i) != 0) {
            /* beyond 64 bits: a real, as serde_json reads it, unless it is a u64 */
            integer = *s != '-' && (q - s < 20 || (q - s == 20 && memcmp(s, "18446744073709551615", 20) <= 0)) ? 2 : 0;
        }
    }
    if (integer != 1) {
        *r = strtod(s, NULL);
        if (!isfinite(*r))
            drv_json_error(j, "invalid JSON: number out of range");
    }
    j->p = q;
    return integer;
}

/* Reads a JSON instance. */
static DRV_UNUSED void drv_read_json(const char *path, char *text, size_t len, drv_inst *x)
{
    drv_json j;
    int seen_format = 0, seen_symbols = 0, seen_arrays = 0;
    j.path = path;
    j.text = j.p = j.line_start = text;
    j.end = text + len;
    j.line = 1;
    memset(x, 0, sizeof *x);
    drv_json_ws(&j);
    if (j.p < j.end && *j.p != '{')
        drv_json_error(&j,
                       "expected an object with \"format\", \"symbols\" and \"arrays\", found %s",
                       drv_json_what(&j));
    drv_json_expect(&j, '{', "an object");
    drv_json_ws(&j);
    if (j.p < j.end && *j.p == '}') {
        j.p++;
    } else {
        for (;;) {
            char *key;
            drv_json_ws(&j);
            key = drv_json_string(&j);
            drv_json_expect(&j, ':', "`:`");
            drv_json_ws(&j);
            if (strcmp(key, "format") == 0) {
                if (seen_format++)
                    drv_json_error(&j, "duplicate key \"format\"");
                if (j.p >= j.end || *j.p != '"')
                    drv_json_error(&j, "at `format`: expected the format's name (a string), found %s",
                                   drv_json_what(&j));
                x->format = drv_json_string(&j);
            } else if (strcmp(key, "symbols") == 0) {
                if (seen_symbols++)
                    drv_json_error(&j, "duplicate key \"symbols\"");
                if (j.p >= j.end || *j.p != '{')
                    drv_json_error(&j, "at `symbols`: expected an object of integers, found %s",
                                   drv_json_what(&j));
                drv_json_expect(&j, '{', "an object");
                drv_json_ws(&j);
                if (j.p < j.end && *j.p == '}') {
                    j.p++;
                } else {
                    for (;;) {
                        char *name = drv_json_string(&j);
                        int64_t v = 0;
                        double r;
                        drv_json_expect(&j, ':', "`:`");
                        drv_json_ws(&j);
                        if (drv_find_symbol(x, name) != NULL)
                            drv_json_error(&j, "duplicate symbol \"%s\"", name);
                        {
                            const char *at = j.p;
                            if (drv_json_number(&j, &v, &r) != 1) {
                                j.p = at;
                                drv_json_error(&j, "at `symbols.%s`: expected an integer", name);
                            }
                        }
                        drv_set_symbol(x, name, v);
                        free(name);
                        if (drv_json_more(&j, '}'))
                            continue;
                        break;
                    }
                }
            } else if (strcmp(key, "arrays") == 0) {
                if (seen_arrays++)
                    drv_json_error(&j, "duplicate key \"arrays\"");
                if (j.p >= j.end || *j.p != '{')
                    drv_json_error(&j, "at `arrays`: expected an object of arrays, found %s",
                                   drv_json_what(&j));
                drv_json_expect(&j, '{', "an object");
                drv_json_ws(&j);
                if (j.p < j.end && *j.p == '}') {
                    j.p++;
                } else {
                    for (;;) {
                        char *name = drv_json_string(&j);
                        int64_t n = 0, cap = 1024, *iv, k;
                        double *rv = NULL;
                        int all_int = 1;
                        drv_json_expect(&j, ':', "`:`");
                        drv_json_ws(&j);
                        if (drv_find_array(x, name) != NULL)
                            drv_json_error(&j, "duplicate array \"%s\"", name);
                        if (j.p >= j.end || *j.p != '[')
                            drv_json_error(&j, "at `arrays.%s`: expected an array of numbers, found %s",
                                           name, drv_json_what(&j));
                        j.p++;
                        iv = drv_alloc(cap, sizeof *iv);
                        drv_json_ws(&j);
                        if (j.p < j.end && *j.p == ']') {
                            j.p++;
                        } else {
                            for (;;) {
                                int64_t v = 0;
                                double r = 0.0;
                                int is_int;
                                drv_json_ws(&j);
                                if (j.p >= j.end || (*j.p != '-' && (*j.p < '0' || *j.p > '9')))
                                    drv_json_error(&j, "at `arrays.%s[%lld]`: expected a number, found %s",
                                                   name, (long long)n, drv_json_what(&j));
                                {
                                    const char *at = j.p;
                                    is_int = drv_json_number(&j, &v, &r);
                                    if (is_int == 2) {
                                        j.p = at;
                                        drv_json_error(&j,
                                                       "at `arrays.%s[%lld]`: the integer %.20s, which is "
                                                       "beyond the 64-bit range (at most "
                                                       "9223372036854775807); write a value with a "
                                                       "decimal point if it is a real",
                                                       name, (long long)n, at);
                                    }
                                }
                                if (n == cap) {
                                    cap *= 2;
                                    if (all_int)
                                        iv = drv_grow(iv, cap, sizeof *iv);
                                    else
                                        rv = drv_grow(rv, cap, sizeof *rv);
                                }
                                if (all_int && !is_int) {
                                    all_int = 0;
                                    rv = drv_alloc(cap, sizeof *rv);
                                    for (k = 0; k < n; k++)
                                        rv[k] = (double)iv[k];
                                    free(iv);
                                    iv = NULL;
                                }
                                if (all_int)
                                    iv[n++] = v;
                                else
                                    rv[n++] = is_int ? (double)v : r;
                                if (drv_json_more(&j, ']'))
                                    continue;
                                break;
                            }
                        }
                        if (all_int)
                            drv_put_ints(x, name, iv, n);
                        else
                            drv_put_reals(x, name, rv, n);
                        free(name);
                        if (drv_json_more(&j, '}'))
                            continue;
                        break;
                    }
                }
            } else if (strcmp(key, "index_width") == 0) {
                int64_t v = 0;
                double r;
                if (x->width != 0)
                    drv_json_error(&j, "duplicate key \"index_width\"");
                if (j.p < j.end && *j.p == '{') {
                    /* {"positions": P, "coordinates": C}: the narrower is
                       what the instance's symbols must fit (every symbol
                       fits 32 bits as soon as one kind is 32-bit). */
                    int seen = 0, narrowest = 64;
                    j.p++;
                    for (;;) {
                        char *kind;
                        int bit;
                        drv_json_ws(&j);
                        kind = drv_json_string(&j);
                        bit = strcmp(kind, "positions") == 0     ? 1
                              : strcmp(kind, "coordinates") == 0 ? 2
                                                                 : 0;
                        if (bit == 0 || (seen & bit))
                            drv_json_error(&j, "at `index_width`: expected \"positions\" and "
                                               "\"coordinates\", once each");
                        free(kind);
                        seen |= bit;
                        drv_json_expect(&j, ':', "`:`");
                        drv_json_ws(&j);
                        if (drv_json_number(&j, &v, &r) != 1 || (v != 32 && v != 64))
                            drv_json_error(&j, "at `index_width`: expected 32 or 64");
                        if (v < narrowest)
                            narrowest = (int)v;
                        if (drv_json_more(&j, '}'))
                            continue;
                        break;
                    }
                    if (seen != 3)
                        drv_json_error(&j, "at `index_width`: expected \"positions\" and "
                                           "\"coordinates\", once each");
                    x->width = narrowest;
                } else {
                    if (drv_json_number(&j, &v, &r) != 1 || (v != 32 && v != 64))
                        drv_json_error(&j, "at `index_width`: expected 32 or 64");
                    x->width = (int)v;
                }
            } else if (strcmp(key, "value_type") == 0) {
                /* spf writes it for values other than float64 */
                drv_json_error(&j, "at `value_type`: a built program converts float64 values "
                                   "only; convert this instance with spf convert");
            } else {
                drv_json_error(&j,
                               "at `%s`: unknown key; an instance has \"format\", \"symbols\", "
                               "\"arrays\" and optionally \"index_width\"",
                               key);
            }
            free(key);
            if (drv_json_more(&j, '}'))
                continue;
            break;
        }
    }
    drv_json_ws(&j);
    if (j.p < j.end)
        drv_json_error(&j, "invalid JSON: trailing characters");
    if (x->format == NULL)
        drv_die("%s: at `format`: missing: the format's name", path);
    free(text);
}

/* ----- JSON output -------------------------------------------------------- */

static DRV_UNUSED void drv_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* The shortest text that reads back exactly, with a decimal point or an
 * exponent so that it reads back as a real. A normal double whose shortest
 * text has at most 15 digits prints it at %.15g (15 digits of any decimal
 * survive the trip through a double and back, DBL_DIG), so its shortest is
 * the first of %.15g, %.16g, %.17g that reads back; a subnormal has fewer
 * bits, and its shortest may be shorter still (5e-324), so every
 * precision is tried from 1. */
static DRV_UNUSED void drv_put_real(FILE *f, double v)
{
    char buf[64];
    int prec;
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    for (prec = (v != 0 && fabs(v) < DBL_MIN) ? 1 : 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (strpbrk(buf, ".eE") == NULL)
        strcat(buf, ".0");
    fputs(buf, f);
}

/* A name and where it is, for writing keys in sorted order. */
typedef struct {
    const char *name;
    int64_t at;
} drv_key;

static DRV_UNUSED int drv_cmp_key(const void *a, const void *b)
{
    return strcmp(((const drv_key *)a)->name, ((const drv_key *)b)->name);
}

/* Opens the output `path` for writing through a temporary file beside it
 * (`*tmp`), which drv_close_output renames into place: the file appears
 * whole or not at all. A special file (/dev/null, a pipe) is written in
 * place: renaming over it would replace it. */
static DRV_UNUSED FILE *drv_open_output(const char *path, char **tmp)
{
    size_t n = strlen(path) + 64;
    struct stat st;
    FILE *f;
    *tmp = drv_alloc((int64_t)n, 1);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        snprintf(*tmp, n, "%s", path);
    else
        snprintf(*tmp, n, "%s.tmp-%ld", path, (long)getpid());
    f = fopen(*tmp, "wb");
    if (f == NULL)
        drv_die("%s: cannot write: %s", path, strerror(errno));
    return f;
}

/* Closes what drv_open_output opened and renames it into place; on an
 * error the temporary file is removed and the program stops. */
static DRV_UNUSED void drv_close_output(FILE *f, char *tmp, const char *path)
{
    int failed = ferror(f) != 0;
    failed |= fflush(f) != 0;
    failed |= fclose(f) != 0;
    if (failed || (strcmp(tmp, path) != 0 && rename(tmp, path) != 0)) {
        int err = errno;
        if (strcmp(tmp, path) != 0)
            remove(tmp);
        drv_die("%s: cannot write: %s", path, strerror(err));
    }
    free(tmp);
}

/* Writes an instance as `Instance::to_json` does (keys sorted), through a
 * temporary file and a rename (drv_open_output). A value that is not
 * finite, which JSON cannot carry, is refused as spf refuses it, before
 * anything is written. */
static DRV_UNUSED void drv_write_json(const drv_inst *x, const char *path)
{
    char *tmp;
    drv_key *keys;
    int64_t k, e;
    FILE *f;
    for (k = 0; k < x->narr; k++)
        for (e = 0; x->arr[k].real && e < x->arr[k].len; e++)
            if (!isfinite(x->arr[k].r[e]))
                drv_die("%s: %s(%lld) = %s is not a finite number, which JSON cannot carry; "
                        "name an .npz output, which keeps NaN and infinities (or `spf convert "
                        "--allow-nonfinite`, which writes .mtx and .tns too)",
                        path, x->arr[k].name, (long long)e,
                        isnan(x->arr[k].r[e]) ? "NaN" : x->arr[k].r[e] > 0 ? "inf" : "-inf");
    f = drv_open_output(path, &tmp);
    fputs("{\n  \"format\": ", f);
    drv_put_string(f, x->format);
    fputs(",\n  \"symbols\": {", f);
    keys = drv_alloc(x->nsym > x->narr ? x->nsym : x->narr, sizeof *keys);
    for (k = 0; k < x->nsym; k++) {
        keys[k].name = x->sym_name[k];
        keys[k].at = k;
    }
    qsort(keys, (size_t)x->nsym, sizeof *keys, drv_cmp_key);
    for (k = 0; k < x->nsym; k++) {
        if (k > 0)
            fputs(", ", f);
        drv_put_string(f, keys[k].name);
        fprintf(f, ": %lld", (long long)x->sym_val[keys[k].at]);
    }
    fputs("},\n  \"arrays\": {", f);
    for (k = 0; k < x->narr; k++) {
        keys[k].name = x->arr[k].name;
        keys[k].at = k;
    }
    qsort(keys, (size_t)x->narr, sizeof *keys, drv_cmp_key);
    for (k = 0; k < x->narr; k++) {
        const drv_array *a = &x->arr[keys[k].at];
        fputs(k == 0 ? "\n    " : ",\n    ", f);
        drv_put_string(f, a->name);
        fputs(": [", f);
        for (e = 0; e < a->len; e++) {
            if (e > 0)
                fputc(',', f);
            if (a->real)
                drv_put_real(f, a->r[e]);
            else
                fprintf(f, "%lld", (long long)a->i[e]);
        }
        fputc(']', f);
    }
    if (x->narr > 0)
        fputs("\n  ", f);
    /* the widths the conversion ran at (spf build --index-width) */
    if (drv_pos_width == drv_crd_width)
        fprintf(f, "},\n  \"index_width\": %d\n}\n", drv_width);
    else
        fprintf(f, "},\n  \"index_width\": {\"positions\": %d, \"coordinates\": %d}\n}\n",
                drv_pos_width, drv_crd_width);
    free(keys);
    drv_close_output(f, tmp, path);
}

static DRV_UNUSED int drv_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static DRV_UNUSED int drv_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && drv_same_name(s + n - m, suffix);
}

