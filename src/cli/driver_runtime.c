/* ---------------------------------------------------------------------------
 * The driver of a conversion binary built by `spf build` (src/cli/driver.rs):
 * instances, the Matrix Market, FROSTT and JSON readers, the JSON writer.
 * Every name starts with `drv_` (the synthesized functions above never use
 * that prefix). Errors print one line on stderr and exit with status 2:
 * `FILE:LINE:COL: message` for a malformed input file, `PROGRAM: message`
 * otherwise.
 * ------------------------------------------------------------------------- */

static const char *drv_prog = "conversion";

/* Not every program uses every function (a program without coordinate
 * input never reads a .mtx file): DRV_UNUSED keeps the compiler quiet. */
#ifdef __GNUC__
#define DRV_NORETURN __attribute__((noreturn))
#define DRV_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define DRV_UNUSED __attribute__((unused))
#else
#define DRV_NORETURN
#define DRV_PRINTF(f, a)
#define DRV_UNUSED
#endif

static void drv_die(const char *fmt, ...) DRV_NORETURN DRV_PRINTF(1, 2);
static DRV_UNUSED void drv_located(const char *path, int64_t line, int64_t col, const char *fmt, ...)
    DRV_NORETURN DRV_PRINTF(4, 5);

#ifdef DRV_JUMP
/* In a library (spf convert's compiled checks, src/cli/native_check.rs), a
 * stop is not the end of the process: the message is kept in drv_message
 * and control jumps back to where drv_jump_at points (the entry point's
 * jmp_buf, or a check part's, drv_parts_run). Both are the
 * calling thread's own when the library runs parts on threads. */
#ifdef DRV_THREADS
#define DRV_TLS __thread
#else
#define DRV_TLS
#endif
static DRV_TLS jmp_buf *drv_jump_at;
static DRV_TLS char drv_message[1024];

static DRV_UNUSED void drv_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(drv_message, sizeof drv_message, fmt, ap);
    va_end(ap);
    longjmp(*drv_jump_at, 1);
}
#else
static DRV_UNUSED void drv_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}
#endif

static void drv_too_large(int64_t n, size_t size)
{
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        drv_die("%s: too large: an array of %lld elements of %zu bytes does not fit in "
                "memory's address range",
                drv_prog, (long long)n, size);
    drv_die("%s: too large: an array of %lld elements (%llu bytes) cannot be "
            "allocated on this machine",
            drv_prog, (long long)n, (unsigned long long)((uint64_t)n * size));
}

static DRV_UNUSED void *drv_alloc(int64_t n, size_t size)
{
    void *p;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        drv_too_large(n, size);
    p = calloc(n > 0 ? (size_t)n : 1, size);
    if (p == NULL)
        drv_too_large(n, size);
    return p;
}

static DRV_UNUSED void *drv_grow(void *p, int64_t n, size_t size)
{
    void *q;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        drv_too_large(n, size);
    q = realloc(p, n > 0 ? (size_t)n * size : 1);
    if (q == NULL)
        drv_too_large(n, size);
    return q;
}

static DRV_UNUSED char *drv_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = drv_alloc((int64_t)n, 1);
    memcpy(d, s, n);
    return d;
}

static DRV_UNUSED int drv_same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

static DRV_UNUSED double drv_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ----- instances ---------------------------------------------------------- */

/* One array of an instance: integers (index arrays) or reals. */
typedef struct {
    char *name;
    int real;
    int64_t len;
    int64_t *i;
    double *r;
    /* The integers when they are held at 32 bits (the arrays spf convert
     * hands its compiled check), instead of `i`; NULL otherwise. */
    const int32_t *i32;
} drv_array;

/* The integer at `k` of the index array `a`, at whatever width it is held. */
static inline int64_t drv_int(const drv_array *a, int64_t k)
{
    return a->i32 != NULL ? (int64_t)a->i32[k] : a->i[k];
}

/* An instance of a format: {"format": ..., "symbols": {...}, "arrays": {...}}. */
typedef struct {
    char *format;
    int64_t nsym, capsym;
    char **sym_name;
    int64_t *sym_val;
    int64_t narr, caparr;
    drv_array *arr;
    int width; /* the index width a JSON instance records (32, 64), or 0 */
} drv_inst;

static DRV_UNUSED void drv_inst_init(drv_inst *x, const char *format)
{
    memset(x, 0, sizeof *x);
    x->format = drv_strdup(format);
}

static DRV_UNUSED void drv_inst_free(drv_inst *x)
{
    int64_t k;
    for (k = 0; k < x->nsym; k++)
        free(x->sym_name[k]);
    for (k = 0; k < x->narr; k++) {
        free(x->arr[k].name);
        free(x->arr[k].i);
        free(x->arr[k].r);
    }
    free(x->sym_name);
    free(x->sym_val);
    free(x->arr);
    free(x->format);
    memset(x, 0, sizeof *x);
}

static DRV_UNUSED int64_t *drv_find_symbol(const drv_inst *x, const char *name)
{
    int64_t k;
    for (k = 0; k < x->nsym; k++)
        if (strcmp(x->sym_name[k], name) == 0)
            return &x->sym_val[k];
    return NULL;
}

static DRV_UNUSED drv_array *drv_find_array(const drv_inst *x, const char *name)
{
    int64_t k;
    for (k = 0; k < x->narr; k++)
        if (strcmp(x->arr[k].name, name) == 0)
            return &x->arr[k];
    return NULL;
}

static DRV_UNUSED void drv_set_symbol(drv_inst *x, const char *name, int64_t v)
{
    int64_t *old = drv_find_symbol(x, name);
    if (old != NULL) {
        *old = v;
        return;
    }
    if (x->nsym == x->capsym) {
        x->capsym = x->capsym ? 2 * x->capsym : 8;
        x->sym_name = drv_grow(x->sym_name, x->capsym, sizeof *x->sym_name);
        x->sym_val = drv_grow(x->sym_val, x->capsym, sizeof *x->sym_val);
    }
    x->sym_name[x->nsym] = drv_strdup(name);
    x->sym_val[x->nsym] = v;
    x->nsym++;
}

/* Adds an array (replacing one of the same name); takes ownership of the
 * values. */
static DRV_UNUSED drv_array *drv_put_array(drv_inst *x, const char *name, int real, int64_t *i, double *r,
                                int64_t len)
{
    drv_array *a = drv_find_array(x, name);
    if (a != NULL) {
        free(a->i);
        free(a->r);
    } else {
        if (x->narr == x->caparr) {
            x->caparr = x->caparr ? 2 * x->caparr : 8;
            x->arr = drv_grow(x->arr, x->caparr, sizeof *x->arr);
        }
        a = &x->arr[x->narr++];
        a->name = drv_strdup(name);
    }
    a->real = real;
    a->i = i;
    a->r = r;
    a->i32 = NULL;
    a->len = len;
    return a;
}

static DRV_UNUSED void drv_put_ints(drv_inst *x, const char *name, int64_t *v, int64_t len)
{
    drv_put_array(x, name, 0, v, NULL, len);
}

static DRV_UNUSED void drv_put_reals(drv_inst *x, const char *name, double *v, int64_t len)
{
    drv_put_array(x, name, 1, NULL, v, len);
}

/* The value of a symbol; `ctx` names the instance in messages. */
static DRV_UNUSED int64_t drv_symbol(const drv_inst *x, const char *ctx, const char *name)
{
    const int64_t *v = drv_find_symbol(x, name);
    if (v == NULL)
        drv_die("%s: the %s instance has no symbol `%s`", ctx, x->format, name);
    return *v;
}

static DRV_UNUSED drv_array *drv_array_named(const drv_inst *x, const char *ctx, const char *name)
{
    drv_array *a = drv_find_array(x, name);
    if (a == NULL)
        drv_die("%s: the %s instance has no array `%s`", ctx, x->format, name);
    return a;
}

static DRV_UNUSED void drv_check_length(const drv_array *a, const char *ctx, int64_t len)
{
    if (a->len != len)
        drv_die("%s: %s has %lld values but the conversion reads %lld", ctx, a->name,
                (long long)a->len, (long long)len);
}

/* An index array of `len` integers. */
static DRV_UNUSED const int64_t *drv_ints(const drv_inst *x, const char *ctx, const char *name, int64_t len)
{
    drv_array *a = drv_array_named(x, ctx, name);
    if (a->real)
        drv_die("%s: %s is an index array and must hold integers, but it holds reals", ctx,
                name);
    drv_check_length(a, ctx, len);
    return a->i;
}

/* A value array of `len` reals (integers are converted in place). */
static DRV_UNUSED const double *drv_reals(const drv_inst *x, const char *ctx, const char *name, int64_t len)
{
    drv_array *a = drv_array_named(x, ctx, name);
    drv_check_length(a, ctx, len);
    if (!a->real) {
        int64_t k;
        a->r = drv_alloc(a->len, sizeof *a->r);
        for (k = 0; k < a->len; k++)
            a->r[k] = (double)a->i[k];
        free(a->i);
        a->i = NULL;
        a->real = 1;
    }
    return a->r;
}

/* The product of extents, each non-negative (a negative extent is an error:
 * the symbols promise an impossible size). */
static DRV_UNUSED int64_t drv_size(const char *ctx, const char *space, int n, const int64_t *extents)
{
    int64_t len = 1;
    int k;
    for (k = 0; k < n; k++) {
        if (extents[k] < 0)
            drv_die("%s: `%s` would have the negative extent %lld", ctx, space,
                    (long long)extents[k]);
        if (extents[k] != 0 && len > INT64_MAX / extents[k])
            drv_die("%s: `%s` would be too large", ctx, space);
        len *= extents[k];
    }
    return len;
}

/* a[k], checked: an extent that reads an index array. */
/* floor(a / m) for m > 0 (C's `/` truncates toward zero). */
static DRV_UNUSED int64_t drv_floordiv(int64_t a, int64_t m)
{
    return a >= 0 ? a / m : -((-a + m - 1) / m);
}

static DRV_UNUSED int64_t drv_at(const char *ctx, const char *name, const int64_t *a, int64_t len, int64_t k)
{
    if (k < 0 || k >= len)
        drv_die("%s: an extent reads %s(%lld), outside its %lld values", ctx, name, (long long)k,
                (long long)len);
    return a[k];
}

/* Checks the names of an instance: its format and exactly these symbols and
 * arrays. */
static DRV_UNUSED void drv_check_names(const drv_inst *x, const char *ctx, const char *format,
                            const char *const *syms, int nsyms, const char *const *arrs,
                            int narrs)
{
    int64_t k;
    int j;
    if (!drv_same_name(x->format, format))
        drv_die("%s: the instance is of format `%s`, not `%s`", ctx, x->format, format);
    for (j = 0; j < nsyms; j++)
        if (drv_find_symbol(x, syms[j]) == NULL)
            drv_die("%s: symbol `%s` has no value", ctx, syms[j]);
    for (j = 0; j < narrs; j++)
        if (drv_find_array(x, arrs[j]) == NULL)
            drv_die("%s: array `%s` is missing", ctx, arrs[j]);
    for (k = 0; k < x->nsym; k++) {
        for (j = 0; j < nsyms && strcmp(syms[j], x->sym_name[k]) != 0; j++)
            ;
        if (j == nsyms)
            drv_die("%s: `%s` is not a symbol of %s", ctx, x->sym_name[k], format);
    }
    for (k = 0; k < x->narr; k++) {
        for (j = 0; j < narrs && strcmp(arrs[j], x->arr[k].name) != 0; j++)
            ;
        if (j == narrs)
            drv_die("%s: `%s` is not an array of %s", ctx, x->arr[k].name, format);
    }
}

static DRV_UNUSED void drv_range_error(const char *ctx, const char *name, int64_t k, int64_t v,
                            const char *range)
{
    drv_die("%s: %s[%lld] = %lld is outside its range %s", ctx, name, (long long)k, (long long)v,
            range);
}

static DRV_UNUSED void drv_monotone_error(const char *ctx, const drv_array *a, int64_t k,
                               const char *property)
{
    drv_die("%s: %s is not %s: %s(%lld) = %lld, %s(%lld) = %lld", ctx, a->name, property, a->name,
            (long long)k, (long long)drv_int(a, k), a->name, (long long)(k + 1),
            (long long)drv_int(a, k + 1));
}

/* The number of nonzero values of an array (0 if absent). */
static DRV_UNUSED int64_t drv_nonzeros(const drv_inst *x, const char *name)
{
    const drv_array *a = drv_find_array(x, name);
    int64_t k, n = 0;
    if (a == NULL)
        return 0;
    for (k = 0; k < a->len; k++)
        n += a->real ? a->r[k] != 0.0 : drv_int(a, k) != 0;
    return n;
}

/* ----- index widths ------------------------------------------------------- */

/* The width of the index arrays the conversion takes and returns (spf build
 * --index-width): 32 or 64, set by main before the first conversion; with
 * positions and coordinates apart (--pos-width, --crd-width), the narrower
 * (what the instance's sizes must fit), and each kind's own below. */
static DRV_UNUSED int drv_width = 64;
static DRV_UNUSED int drv_pos_width = 64, drv_crd_width = 64;

/* Whether `name` is one of the position (pointer) arrays `positions`
 * (drv_src_positions or drv_dst_positions, from the glue; NULL-ended). */
static DRV_UNUSED int drv_is_position(const char *const *positions, const char *name)
{
    for (; *positions != NULL; positions++)
        if (strcmp(*positions, name) == 0)
            return 1;
    return 0;
}

/* The bytes of x's arrays as the conversion holds them: 8 per real, each
 * index at its kind's width (`positions`: x's format's position arrays). */
static DRV_UNUSED int64_t drv_bytes(const drv_inst *x, const char *const *positions)
{
    int64_t k, n = 0;
    for (k = 0; k < x->narr; k++) {
        const int bits =
            drv_is_position(positions, x->arr[k].name) ? drv_pos_width : drv_crd_width;
        n += x->arr[k].len * (x->arr[k].real ? 8 : bits / 8);
    }
    return n;
}

#define DRV_FITS_32(v) ((v) <= INT32_MAX && (v) >= -INT32_MAX)

/* 1 when every size of instance x fits 32-bit indices: each symbol, each
 * array's length and each index value at most 2^31 - 1 in magnitude;
 * otherwise 0, with the first that does not described in what[0..size)
 * and its value in *value. */
static DRV_UNUSED int drv_fits_32(const drv_inst *x, char *what, size_t size, int64_t *value)
{
    int64_t k, e;
    for (k = 0; k < x->nsym; k++)
        if (!DRV_FITS_32(x->sym_val[k])) {
            snprintf(what, size, "the symbol %s", x->sym_name[k]);
            *value = x->sym_val[k];
            return 0;
        }
    for (k = 0; k < x->narr; k++) {
        const drv_array *a = &x->arr[k];
        if (!DRV_FITS_32(a->len)) {
            snprintf(what, size, "the length of %s", a->name);
            *value = a->len;
            return 0;
        }
        for (e = 0; !a->real && a->i32 == NULL && e < a->len; e++)
            if (!DRV_FITS_32(a->i[e])) {
                snprintf(what, size, "%s[%lld]", a->name, (long long)e);
                *value = a->i[e];
                return 0;
            }
    }
    return 1;
}

/* A copy of index array a[0..len) at 32 bits (its values fit:
 * drv_fits_32). */
static DRV_UNUSED int32_t *drv_to_i32(const int64_t *a, int64_t len)
{
    int32_t *b = drv_alloc(len, sizeof *b);
    int64_t k;
    for (k = 0; k < len; k++)
        b[k] = (int32_t)a[k];
    return b;
}

/* 32-bit index array a[0..len) at 64 bits; a is freed. */
static DRV_UNUSED int64_t *drv_to_i64(int32_t *a, int64_t len)
{
    int64_t *b = drv_alloc(len, sizeof *b);
    int64_t k;
    for (k = 0; k < len; k++)
        b[k] = a[k];
    free(a);
    return b;
}

/* SPF_INDEX_OVERFLOW: a size the 32-bit conversion computes (an output's
 * length) does not fit its indices. */
static DRV_UNUSED void drv_index_overflow(const char *what, int64_t n)
{
    fprintf(stderr,
            "%s: %s is %lld: more than 32-bit indices hold (2147483647); build with "
            "--index-width 64\n",
            drv_prog, what, (long long)n);
    exit(2);
}

/* ----- files and fields --------------------------------------------------- */

static DRV_UNUSED char *drv_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (f == NULL)
        drv_die("%s: %s", path, strerror(errno));
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            cap = cap ? 2 * cap : 1 << 20;
            buf = drv_grow(buf, (int64_t)cap + 1, 1);
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        drv_die("%s: %s", path, strerror(errno));
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static DRV_UNUSED void drv_located(const char *path, int64_t line, int64_t col, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%lld:%lld: ", path, (long long)line, (long long)col);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

/* ASCII whitespace as Rust's `is_ascii_whitespace`: space, \t, \n, \f, \r. */
static DRV_UNUSED int drv_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Characters (not bytes: UTF-8 continuation bytes do not count) in [p, q). */
static DRV_UNUSED int64_t drv_chars(const char *p, const char *q)
{
    int64_t n = 0;
    for (; p < q; p++)
        n += ((unsigned char)*p & 0xC0) != 0x80;
    return n;
}

typedef struct {
    const char *p;
    size_t n;
    int64_t col;
} drv_field;

#define DRV_MAX_FIELDS 8

/* A line split into fields: the first DRV_MAX_FIELDS of them, how many
 * there are, and the column just past the line's end. */
typedef struct {
    int64_t number;
    drv_field f[DRV_MAX_FIELDS];
    int count;
    int64_t end_col;
} drv_line;

static DRV_UNUSED void drv_split(const char *p, const char *end, int64_t number, drv_line *l)
{
    const char *start = p;
    l->number = number;
    l->count = 0;
    while (p < end) {
        if (drv_space(*p)) {
            p++;
            continue;
        }
        {
            const char *s = p;
            while (p < end && !drv_space(*p))
                p++;
            if (l->count < DRV_MAX_FIELDS) {
                l->f[l->count].p = s;
                l->f[l->count].n = (size_t)(p - s);
                l->f[l->count].col = drv_chars(start, s) + 1;
            }
            l->count++;
        }
    }
    l->end_col = drv_chars(start, end) + 1;
}

/* The next line of [*p, end): its bounds; advances *p past its '\n'.
 * Returns 0 at the end of the text (a text ending in '\n' has a last,
 * empty line, as in the Rust reader). */
static DRV_UNUSED int drv_next_line(const char **p, const char *end, int *done, const char **s,
                         const char **e)
{
    const char *q;
    if (*done)
        return 0;
    *s = *p;
    q = memchr(*p, '\n', (size_t)(end - *p));
    if (q == NULL) {
        *e = end;
        *p = end;
        *done = 1;
    } else {
        *e = q;
        *p = q + 1;
    }
    return 1;
}

/* The line and column just past the end of the text. */
static DRV_UNUSED void drv_end_position(const char *text, const char *end, int64_t *line, int64_t *col)
{
    const char *last = text, *p;
    *line = 1;
    for (p = text; p < end; p++)
        if (*p == '\n') {
            (*line)++;
            last = p + 1;
        }
    *col = drv_chars(last, end) + 1;
}

/* Field text as a NUL-terminated string (for messages and strtod). */
static DRV_UNUSED const char *drv_text(drv_field f)
{
    static char buf[4][256];
    static int which;
    char *b = buf[which++ & 3];
    size_t n = f.n < 255 ? f.n : 255;
    memcpy(b, f.p, n);
    b[n] = '\0';
    return b;
}

/* 0: ok; 1: not an integer; 2: out of the 64-bit range. */
static DRV_UNUSED int drv_parse_i64(drv_field f, int64_t *out)
{
    size_t k = 0;
    int neg = 0;
    uint64_t v = 0, limit;
    if (k < f.n && (f.p[k] == '+' || f.p[k] == '-'))
        neg = f.p[k++] == '-';
    if (k == f.n)
        return 1;
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; k < f.n; k++) {
        unsigned d;
        if (f.p[k] < '0' || f.p[k] > '9')
            return 1;
        d = (unsigned)(f.p[k] - '0');
        if (v > (limit - d) / 10) {
            for (k++; k < f.n; k++)
                if (f.p[k] < '0' || f.p[k] > '9')
                    return 1;
            return 2;
        }
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Rust's float syntax plus a Fortran `D` exponent. 0: ok; 1: not a number;
 * 2: not finite. */
static DRV_UNUSED int drv_parse_f64(drv_field f, double *out)
{
    char small[128];
    char *buf = f.n < sizeof small ? small : drv_alloc((int64_t)f.n + 1, 1);
    size_t k = 0, digits = 0;
    int word = 0, result = 0;
    char *endp;
    memcpy(buf, f.p, f.n);
    buf[f.n] = '\0';
    if (buf[k] == '+' || buf[k] == '-')
        k++;
    {
        const char *w = buf + k;
        if (drv_same_name(w, "inf") || drv_same_name(w, "infinity") || drv_same_name(w, "nan"))
            word = 1;
    }
    if (word) {
        result = 2;
        goto done;
    }
    while (buf[k] >= '0' && buf[k] <= '9')
        k++, digits++;
    if (buf[k] == '.') {
        k++;
        while (buf[k] >= '0' && buf[k] <= '9')
            k++, digits++;
    }
    if (digits == 0) {
        result = 1;
        goto done;
    }
    if (buf[k] == 'e' || buf[k] == 'E' || buf[k] == 'd' || buf[k] == 'D') {
        size_t exp_digits = 0;
        buf[k] = 'e';
        k++;
        if (buf[k] == '+' || buf[k] == '-')
            k++;
        while (buf[k] >= '0' && buf[k] <= '9')
            k++, exp_digits++;
        if (exp_digits == 0) {
            result = 1;
            goto done;
        }
    }
    if (buf[k] != '\0') {
        result = 1;
        goto done;
    }
    *out = strtod(buf, &endp);
    if (*endp != '\0')
        result = 1;
    else if (!isfinite(*out))
        result = 2;
done:
    if (buf != small)
        free(buf);
    return result;
}

/* ----- coordinates -------------------------------------------------------- */

/* Entries in file order, duplicates summed into the first occurrence. */
typedef struct {
    int order;
    int64_t dims[DRV_MAX_FIELDS];
    int64_t n, cap;
    int64_t *idx; /* n * order indices, 0-based */
    double *val;
    int64_t *table; /* open addressing: entry + 1, 0 when empty */
    int64_t tcap;
} drv_coords;

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

static DRV_UNUSED void drv_coords_add(drv_coords *c, const int64_t *idx, double v)
{
    uint64_t h;
    if (2 * (c->n + 1) > c->tcap)
        drv_coords_rehash(c, c->tcap ? 2 * c->tcap : 1024);
    h = drv_hash(idx, c->order) & (uint64_t)(c->tcap - 1);
    while (c->table[h] != 0) {
        int64_t e = c->table[h] - 1;
        if (memcmp(c->idx + e * c->order, idx, (size_t)c->order * sizeof *idx) == 0) {
            c->val[e] += v;
            return;
        }
        h = (h + 1) & (uint64_t)(c->tcap - 1);
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->idx = drv_grow(c->idx, c->cap * c->order, sizeof *c->idx);
        c->val = drv_grow(c->val, c->cap, sizeof *c->val);
    }
    memcpy(c->idx + c->n * c->order, idx, (size_t)c->order * sizeof *idx);
    c->val[c->n] = v;
    c->table[h] = ++c->n;
}

static DRV_UNUSED void drv_coords_free(drv_coords *c)
{
    free(c->idx);
    free(c->val);
    free(c->table);
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

static DRV_UNUSED double drv_real_field(const char *path, int64_t line, drv_field f, const char *what)
{
    double v = 0.0;
    int r = drv_parse_f64(f, &v);
    if (r == 1)
        drv_located(path, line, f.col, "%s `%s` is not a number", what, drv_text(f));
    if (r == 2)
        drv_located(path, line, f.col,
                    "%s `%s` is not a finite number (NaN and infinities are not accepted)", what,
                    drv_text(f));
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

#define DRV_BANNER_HELP                                                                   \
    "`%%%%MatrixMarket matrix coordinate|array real|integer|pattern "                      \
    "general|symmetric|skew-symmetric`"

static DRV_UNUSED int drv_field_is(drv_field f, const char *word)
{
    return strlen(word) == f.n && drv_same_name(drv_text(f), word);
}

/* Reads a Matrix Market file (coordinate or array; real, integer or
 * pattern; general, symmetric or skew-symmetric, expanded to both
 * triangles, the mirror negated when skew), as spf's reader does. */
static DRV_UNUSED void drv_read_mtx(const char *path, drv_coords *c)
{
    size_t len;
    char *text = drv_slurp(path, &len);
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
    /* The banner. */
    drv_next_line(&p, end, &done, &s, &e);
    number = 1;
    drv_split(s, e, 1, &l);
    if (l.count == 0 || !drv_field_is(l.f[0], "%%MatrixMarket"))
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
                drv_located(path, number, l.f[0].col,
                            "entry (%lld, %lld) mirrors the entry (%lld, %lld) of line %lld: a "
                            "symmetric file lists one triangle, and expanding both would add "
                            "them into both positions; keep one of them, or declare the matrix "
                            "general",
                            (long long)idx[0] + 1, (long long)idx[1] + 1, (long long)idx[1] + 1,
                            (long long)idx[0] + 1, (long long)given.val[at - 1]);
            if (drv_coords_find(&given, idx) == 0)
                drv_coords_add(&given, idx, (double)number);
        }
        drv_coords_add(c, idx, v);
        if (kind != 0 && idx[0] != idx[1])
            drv_coords_add(c, mirror, kind == 2 ? -v : v);
    }
    drv_coords_free(&given);
    if (read < counts[2]) {
        int64_t el, ec;
        drv_end_position(text, end, &el, &ec);
        drv_located(path, el, ec, "the file ends after %lld of the %lld %s announced on line %lld",
                    (long long)read, (long long)counts[2], what, (long long)size.number);
    }
    free(text);
}

/* Reads a FROSTT file: 1-based indices then the value; `#` comments; the
 * extents are the largest indices. */
static DRV_UNUSED void drv_read_tns(const char *path, drv_coords *c)
{
    size_t len;
    char *text = drv_slurp(path, &len);
    const char *p = text, *end = text + len, *s, *e;
    int done = 0, m = -1, d;
    int64_t number = 0, first_line = 0;
    drv_line l;
    memset(c, 0, sizeof *c);
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
        drv_coords_add(c, idx, drv_real_field(path, number, l.f[m], "value"));
    }
    if (m < 0)
        c->order = 0;
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

/* A number: returns 1 for an integer (*i), 0 for a real (*r). */
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
        if (drv_parse_i64(f, i) != 0)
            integer = 0; /* beyond 64 bits: a real, as serde_json reads it */
    }
    if (!integer) {
        *r = strtod(s, NULL);
        if (!isfinite(*r))
            drv_json_error(j, "invalid JSON: number out of range");
    }
    j->p = q;
    return integer;
}

/* Reads a JSON instance. */
static DRV_UNUSED void drv_read_json(const char *path, drv_inst *x)
{
    size_t len;
    char *text = drv_slurp(path, &len);
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
                            if (!drv_json_number(&j, &v, &r)) {
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
                                is_int = drv_json_number(&j, &v, &r);
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
                        if (!drv_json_number(&j, &v, &r) || (v != 32 && v != 64))
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
                    if (!drv_json_number(&j, &v, &r) || (v != 32 && v != 64))
                        drv_json_error(&j, "at `index_width`: expected 32 or 64");
                    x->width = (int)v;
                }
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

/* The shortest of %.15g, %.16g, %.17g that reads back exactly, with a
 * decimal point or an exponent so that it reads back as a real. */
static DRV_UNUSED void drv_put_real(FILE *f, double v)
{
    char buf[64];
    int prec;
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    for (prec = 15; prec <= 17; prec++) {
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

/* Writes an instance as `Instance::to_json` does (keys sorted), through a
 * temporary file and a rename: the file appears whole or not at all. */
static DRV_UNUSED void drv_write_json(const drv_inst *x, const char *path)
{
    size_t n = strlen(path) + 64;
    char *tmp = drv_alloc((int64_t)n, 1);
    drv_key *keys;
    int64_t k, e;
    FILE *f;
    int failed;
    struct stat st;
    /* A special file (/dev/null, a pipe) is written in place: renaming over
     * it would replace it. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        snprintf(tmp, n, "%s", path);
    else
        snprintf(tmp, n, "%s.tmp-%ld", path, (long)getpid());
    f = fopen(tmp, "wb");
    if (f == NULL)
        drv_die("%s: cannot write: %s", path, strerror(errno));
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
    failed = ferror(f) != 0;
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

/* ----- verification (spf build --verify) ------------------------------------
 * The input and the output, each converted to coordinates by a synthesized
 * (and validated) conversion to COO, must store the same nonzero entries:
 * the oracle of spf convert, run on the user's own data. */

/* The most modes an entry of the verification holds (spf build refuses
 * --verify for more). */
#define DRV_MAX_ORDER 8

typedef struct {
    int64_t c[DRV_MAX_ORDER];
    double v;
    int64_t at; /* its position in the value array (the storage check's messages) */
} drv_entry;

static int drv_entry_order = 2;

static DRV_UNUSED int drv_cmp_entry(const void *a, const void *b)
{
    const drv_entry *x = a, *y = b;
    int d;
    for (d = 0; d < drv_entry_order; d++)
        if (x->c[d] != y->c[d])
            return x->c[d] < y->c[d] ? -1 : 1;
    return 0;
}

/* The nonzero entries of a coordinate instance (names of the COO layout),
 * sorted by coordinates. */
static DRV_UNUSED drv_entry *drv_sorted_entries(const drv_inst *coo, const char *ctx, int order,
                                                const char *const *index, const char *count,
                                                const char *values, int64_t *n)
{
    int64_t len = drv_symbol(coo, ctx, count), k, m = 0;
    const int64_t *idx[DRV_MAX_ORDER] = {NULL};
    const double *val = drv_reals(coo, ctx, values, len);
    drv_entry *out;
    int d;
    if (order > DRV_MAX_ORDER)
        drv_die("%s: %d modes; the verification compares entries of at most %d", ctx, order, DRV_MAX_ORDER);
    for (d = 0; d < order; d++)
        idx[d] = drv_ints(coo, ctx, index[d], len);
    out = drv_alloc(len > 0 ? len : 1, sizeof *out);
    for (k = 0; k < len; k++) {
        if (val[k] == 0.0)
            continue; /* a stored zero is no entry */
        memset(&out[m], 0, sizeof out[m]);
        for (d = 0; d < order; d++)
            out[m].c[d] = idx[d][k];
        out[m].v = val[k];
        m++;
    }
    drv_entry_order = order;
    qsort(out, (size_t)m, sizeof *out, drv_cmp_entry);
    *n = m;
    return out;
}

static DRV_UNUSED void drv_entry_text(char *buf, size_t size, const drv_entry *e, int order)
{
    int d, used = 0;
    used += snprintf(buf + used, size - (size_t)used, "(");
    for (d = 0; d < order && used < (int)size; d++)
        used += snprintf(buf + used, size - (size_t)used, d ? ", %lld" : "%lld", (long long)e->c[d]);
    if (used < (int)size)
        snprintf(buf + used, size - (size_t)used, ")");
}

/* Exits with status 3 at the first difference between the two sorted entry
 * lists: a lost, an added, a repeated or a changed entry. */
static DRV_UNUSED void drv_compare_entries(const drv_entry *a, int64_t na, const drv_entry *b, int64_t nb,
                                           int order, const char *input)
{
    int64_t i = 0, j = 0;
    char at[128];
    for (j = 1; j < nb; j++)
        if (drv_cmp_entry(&b[j - 1], &b[j]) == 0) {
            drv_entry_text(at, sizeof at, &b[j], order);
            fprintf(stderr, "%s: %s: verification failed: the output stores %s twice\n", drv_prog,
                    input, at);
            exit(3);
        }
    j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : drv_cmp_entry(&a[i], &b[j]);
        if (c < 0) {
            drv_entry_text(at, sizeof at, &a[i], order);
            fprintf(stderr,
                    "%s: %s: verification failed: the input's entry %s = %.17g is missing from "
                    "the output (%lld entries in, %lld out)\n",
                    drv_prog, input, at, a[i].v, (long long)na, (long long)nb);
            exit(3);
        }
        if (c > 0) {
            drv_entry_text(at, sizeof at, &b[j], order);
            fprintf(stderr,
                    "%s: %s: verification failed: the output stores %s = %.17g, which the input "
                    "does not (%lld entries in, %lld out)\n",
                    drv_prog, input, at, b[j].v, (long long)na, (long long)nb);
            exit(3);
        }
        if (!(a[i].v == b[j].v || (isnan(a[i].v) && isnan(b[j].v)))) {
            drv_entry_text(at, sizeof at, &a[i], order);
            fprintf(stderr,
                    "%s: %s: verification failed: the entry %s is %.17g in the input but %.17g "
                    "in the output\n",
                    drv_prog, input, at, a[i].v, b[j].v);
            exit(3);
        }
        i++;
        j++;
    }
}

/* ----- rule and storage checks (drv_check_rules, generated per source format) -----
 * Arithmetic is in 128 bits and checked: an overflow is the input's error,
 * reported, never a wrap-around. */

__extension__ typedef __int128 drv_wide;
__extension__ typedef unsigned __int128 drv_uwide;

static DRV_UNUSED void drv_overflow(const char *ctx, const char *what)
{
    drv_die("%s: cannot evaluate %s: arithmetic overflow", ctx, what);
}

static DRV_UNUSED drv_wide drv_wadd(const char *ctx, drv_wide a, drv_wide b)
{
    drv_wide r;
    if (__builtin_add_overflow(a, b, &r))
        drv_overflow(ctx, "a check");
    return r;
}

static DRV_UNUSED drv_wide drv_wsub(const char *ctx, drv_wide a, drv_wide b)
{
    drv_wide r;
    if (__builtin_sub_overflow(a, b, &r))
        drv_overflow(ctx, "a check");
    return r;
}

static DRV_UNUSED drv_wide drv_wmul(const char *ctx, drv_wide a, drv_wide b)
{
    drv_wide r;
    if (__builtin_mul_overflow(a, b, &r))
        drv_overflow(ctx, "a check");
    return r;
}

static DRV_UNUSED drv_wide drv_wneg(const char *ctx, drv_wide a)
{
    return drv_wsub(ctx, 0, a);
}

/* Floor division and the remainder with the sign of the divisor (a = b *
 * (a / b) + a % b), as comparator keys define them. */
static DRV_UNUSED drv_wide drv_wdiv(const char *ctx, const char *what, drv_wide a, drv_wide b)
{
    drv_wide q;
    if (b == 0)
        drv_die("%s: %s: division by zero in the key", ctx, what);
    if (b == -1)
        return drv_wneg(ctx, a);
    q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

static DRV_UNUSED drv_wide drv_wrem(const char *ctx, const char *what, drv_wide a, drv_wide b)
{
    return drv_wsub(ctx, a, drv_wmul(ctx, b, drv_wdiv(ctx, what, a, b)));
}

/* Floor division by a positive constant. */
static DRV_UNUSED drv_wide drv_wfloor(drv_wide a, int64_t m)
{
    drv_wide q = a / m;
    return (a % m != 0 && a < 0) ? q - 1 : q;
}

/* Ceiling division by a positive constant. */
static DRV_UNUSED drv_wide drv_wceil(drv_wide a, int64_t m)
{
    drv_wide q = a / m;
    return (a % m != 0 && a > 0) ? q + 1 : q;
}

static DRV_UNUSED drv_wide drv_wmin(drv_wide a, drv_wide b)
{
    return a < b ? a : b;
}

static DRV_UNUSED drv_wide drv_wmax(drv_wide a, drv_wide b)
{
    return a > b ? a : b;
}

/* A value as a 64-bit index: outside that range it cannot be one. */
static DRV_UNUSED int64_t drv_narrow(const char *ctx, drv_wide a)
{
    if (a < INT64_MIN || a > INT64_MAX)
        drv_overflow(ctx, "an index");
    return (int64_t)a;
}

/* interleave(p[0], ..., p[n-1]): bit b of p[i] at bit b * n + i of the code,
 * which must fit in 127 bits; the arguments must be non-negative. */
static DRV_UNUSED drv_wide drv_interleave(const char *ctx, const char *what, int n, const drv_wide *p)
{
    drv_uwide out = 0;
    int i, b;
    for (i = 0; i < n; i++) {
        drv_uwide x;
        if (p[i] < 0)
            drv_die("%s: %s: interleave needs non-negative values, but argument %d is %lld", ctx,
                    what, i + 1, (long long)p[i]);
        x = (drv_uwide)p[i];
        for (b = 0; b < 128 && (x >> b) != 0; b++)
            if ((x >> b) & 1) {
                if ((int64_t)b * n + i >= 127)
                    drv_die("%s: %s: interleave of %d values does not fit in 127 bits "
                            "(argument %d is %lld)",
                            ctx, what, n, i + 1, (long long)p[i]);
                out |= (drv_uwide)1 << (b * n + i);
            }
    }
    return (drv_wide)out;
}

/* Lexicographic comparison of two keys of k components. */
static DRV_UNUSED int drv_key_cmp(int k, const drv_wide *x, const drv_wide *y)
{
    int d;
    for (d = 0; d < k; d++)
        if (x[d] != y[d])
            return x[d] < y[d] ? -1 : 1;
    return 0;
}

/* A read of an index array by a check, outside the array. */
static DRV_UNUSED void drv_rule_read(const char *ctx, const char *rule, const char *name, int64_t at,
                                      int64_t len)
{
    drv_die("%s: rule `%s` reads %s at %lld, outside its %lld values", ctx, rule, name,
            (long long)at, (long long)len);
}

/* "NAME(v) = x" of a point, for messages. */
static DRV_UNUSED void drv_point_text(char *buf, size_t size, const char *const *names, int n,
                                      const int64_t *v)
{
    int i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < n && used >= 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - (size_t)used, i ? ", %s = %lld" : "%s = %lld", names[i],
                         (long long)v[i]);
}

static DRV_UNUSED void drv_rule_violated(const char *ctx, const char *rule, const char *const *names,
                                         int n, const int64_t *v)
{
    char at[512];
    drv_point_text(at, sizeof at, names, n, v);
    drv_die("%s: rule `%s` does not hold at %s", ctx, rule, at);
}

static DRV_UNUSED void drv_rule_expensive(const char *ctx, const char *rule, int64_t budget)
{
    drv_die("%s: cannot check rule `%s`: it needs more than %lld evaluations (neither the "
            "adjacent-pair check of an ordering nor a join on equal keys applies)",
            ctx, rule, (long long)budget);
}

/* The points of one side of a join: records of k keys and the point's o
 * own variables (the side's variable, then those tied to it). */
typedef struct {
    int64_t *w;
    int64_t n, cap, k, o;
} drv_records;

static DRV_UNUSED void drv_records_push(drv_records *r, const int64_t *keys, const int64_t *own)
{
    int64_t i, w = r->k + r->o;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->w = drv_grow(r->w, r->cap * w, sizeof *r->w);
    }
    for (i = 0; i < r->k; i++)
        r->w[r->n * w + i] = keys[i];
    for (i = 0; i < r->o; i++)
        r->w[r->n * w + r->k + i] = own[i];
    r->n++;
}

static int64_t drv_record_words;

static DRV_UNUSED int drv_cmp_record(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    int64_t i;
    for (i = 0; i < drv_record_words; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Sorts records by keys, then point, and drops repeated ones. */
static DRV_UNUSED void drv_records_sort(drv_records *r)
{
    int64_t i, m = 0, w = r->k + r->o;
    drv_record_words = w;
    if (r->n > 1)
        qsort(r->w, (size_t)r->n, (size_t)w * sizeof *r->w, drv_cmp_record);
    for (i = 0; i < r->n; i++)
        if (m == 0 || drv_cmp_record(&r->w[(m - 1) * w], &r->w[i * w]) != 0) {
            if (m != i)
                memmove(&r->w[m * w], &r->w[i * w], (size_t)w * sizeof *r->w);
            m++;
        }
    r->n = m;
}

/* Checks the rule at a pair of records (the side points' keys, the shared
 * variables first, then each side's own variables) and reports a violation. */
typedef void (*drv_pair_fn)(const char *ctx, const int64_t *a, const int64_t *b);

/* The pairs (a, b) of a join with equal keys, a from side 0 and b from side
 * 1 (a's own variable below b's when ordered), checked by `pair`. With
 * `consecutive` (both sides one set of points and the conclusion a
 * transitive order), consecutive members of a group suffice. */
static DRV_UNUSED void drv_join(const char *ctx, const char *rule, drv_records *s0, drv_records *s1,
                                int ordered, int consecutive, int64_t budget, drv_pair_fn pair)
{
    int64_t w = s0->k + s0->o, i, lo = 0, pairs = 0;
    drv_records_sort(s0);
    drv_records_sort(s1);
    drv_record_words = s0->k;
    if (consecutive) {
        for (i = 1; i < s0->n; i++)
            if (drv_cmp_record(&s0->w[(i - 1) * w], &s0->w[i * w]) == 0)
                pair(ctx, &s0->w[(i - 1) * w], &s0->w[i * w]);
        return;
    }
    for (i = 0; i < s0->n; i++) {
        const int64_t *a = &s0->w[i * w];
        int64_t j;
        drv_record_words = s0->k;
        while (lo < s1->n && drv_cmp_record(&s1->w[lo * w], a) < 0)
            lo++;
        for (j = lo; j < s1->n && drv_cmp_record(&s1->w[j * w], a) == 0; j++) {
            const int64_t *b = &s1->w[j * w];
            if (ordered && a[s0->k] >= b[s0->k])
                continue;
            if (++pairs > budget)
                drv_rule_expensive(ctx, rule, budget);
            pair(ctx, a, b);
        }
    }
}

static DRV_UNUSED void drv_records_free(drv_records *r)
{
    free(r->w);
    r->w = NULL;
    r->n = r->cap = 0;
}

/* A value of the value array, integer or real. */
static DRV_UNUSED double drv_value_at(const drv_array *a, int64_t k)
{
    return a->real ? a->r[k] : (double)drv_int(a, k);
}

/* The nonzero entries the storage check finds. */
typedef struct {
    drv_entry *e;
    int64_t n, cap;
} drv_entries;

/* Entries as a library's check hands them back (src/cli/native_check.rs):
 * `order` coordinates per entry in `coords`, the values in `values`, room
 * for `cap` (the caller's buffers). */
typedef struct {
    int64_t *coords;
    double *values;
    int64_t n, cap;
} drv_kept;

/* Where the storage check writes its entries when a library hands them
 * back, or NULL: they go to drv_entries and are freed after the check. */
static drv_kept *drv_keep = NULL;

/* Whether the kept entries need only be shown distinct (any order), not
 * sorted by coordinate. */
static int drv_keep_unordered = 0;

/* The fingerprint of the storage check's nonzero entries (their number
 * and the sum of their keyed hashes, synth/src/fingerprint.rs), or NULL.
 * When set, the entries are neither kept nor sorted: two at one coordinate
 * are the caller's to find, by comparing with an input that has none. */
typedef struct {
    uint64_t key, count, sum;
    /* When `watch` is set, `live` has bit p set while the entries so far
     * increase strictly in the order drv_orders[p] of the coordinates
     * (`prev` is the last entry): then no two share a coordinate. */
    int watch, live;
    int64_t prev[3], first[3];
} drv_fp;

static drv_fp *drv_print = NULL;

/* The orders of up to 3 coordinates (the first most significant): the
 * first of each size is the natural one; drv_norders[n] are those of n. */
static const int drv_orders[6][3] = {{0, 1, 2}, {1, 0, 2}, {0, 2, 1}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const int drv_norders[4] = {0, 1, 2, 6};

/* Whether entry `b` comes strictly after entry `a` in order `p`. */
static DRV_UNUSED int drv_after(const int64_t *a, const int64_t *b, int order, int p)
{
    int i;
    for (i = 0; i < order; i++)
        if (a[drv_orders[p][i]] != b[drv_orders[p][i]])
            return a[drv_orders[p][i]] < b[drv_orders[p][i]];
    return 0;
}

/* Follows the orders in which the entries still increase (drv_fp). */
static DRV_UNUSED void drv_fp_watch(drv_fp *f, int order, const int64_t *c)
{
    int p, d;
    if (order > 3) {
        f->live = 0;
        return;
    }
    if (f->count == 1) {
        f->live &= (1 << drv_norders[order]) - 1; /* the orders there are */
        for (d = 0; d < order; d++)
            f->first[d] = c[d];
    } else
        for (p = 0; p < drv_norders[order]; p++)
            if ((f->live >> p & 1) && !drv_after(f->prev, c, order, p))
                f->live &= ~(1 << p);
    for (d = 0; d < order; d++)
        f->prev[d] = c[d];
}

/* The constants an entry's words are xored with (fingerprint.rs's P). */
static const uint64_t drv_fp_consts[8] = {
    UINT64_C(0xa0761d6478bd642f), UINT64_C(0xe7037ed1a0b428db), UINT64_C(0x8ebc6af09c88c6e3),
    UINT64_C(0x589965cc75374cc3), UINT64_C(0x1d8e4e27c47d124f), UINT64_C(0x9e3779b97f4a7c15),
    UINT64_C(0xc2b2ae3d27d4eb4f), UINT64_C(0x165667b19e3779f9)};

/* wyhash's multiply-fold: the 128-bit product's halves xored. */
static inline uint64_t drv_fp_fold(uint64_t x, uint64_t y)
{
    __extension__ typedef unsigned __int128 drv_u128;
    const drv_u128 p = (drv_u128)x * y;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* The word j of an entry: its coordinates, its value's bits, then 0. */
static inline uint64_t drv_fp_word(int order, const int64_t *c, uint64_t bits, int j)
{
    return j < order ? (uint64_t)c[j] : j == order ? bits : 0;
}

/* The hash of one entry under `key` (fingerprint.rs's entry_hash): its
 * words folded in two at a time. */
static inline uint64_t drv_fp_entry(uint64_t key, int order, const int64_t *c, double v)
{
    uint64_t h = key, bits;
    int j;
    memcpy(&bits, &v, sizeof bits);
    for (j = 0; j <= order; j += 2)
        h = drv_fp_fold(drv_fp_word(order, c, bits, j) ^ h ^ drv_fp_consts[j % 8],
                        drv_fp_word(order, c, bits, j + 1) ^ drv_fp_consts[(j + 1) % 8]);
    return h;
}

/* Adds a nonzero entry to fingerprint f. */
static inline void drv_fp_add(drv_fp *f, int order, const int64_t *c, double v)
{
    f->count++;
    f->sum += drv_fp_entry(f->key, order, c, v);
    if (f->watch && f->live)
        drv_fp_watch(f, order, c);
}

/* Adds to `into` the fingerprint `next` of the entries that come after
 * its own: counts and sums add up, and an order in which both increased
 * still holds if `next`'s first entry comes after `into`'s last. */
static DRV_UNUSED void drv_fp_merge(drv_fp *into, const drv_fp *next, int order)
{
    int p, d;
    if (next->count == 0)
        return;
    if (into->count == 0) {
        const uint64_t key = into->key;
        *into = *next;
        into->key = key;
        return;
    }
    into->count += next->count;
    into->sum += next->sum;
    if (!into->watch)
        return;
    into->live &= next->live;
    if (order > 3)
        into->live = 0;
    for (p = 0; into->live && p < drv_norders[order]; p++)
        if ((into->live >> p & 1) && !drv_after(into->prev, next->first, order, p))
            into->live &= ~(1 << p);
    for (d = 0; d < order && d < 3; d++)
        into->prev[d] = next->prev[d];
}

/* Whether e[0..n) is in order by coordinate d alone. */
static DRV_UNUSED int drv_sorted_by(const drv_entry *e, int64_t n, int d)
{
    int64_t k;
    for (k = 1; k < n; k++)
        if (e[k - 1].c[d] > e[k].c[d])
            return 0;
    return 1;
}

/* Sorts entries by their coordinates (the first most significant), in
 * linear time when every coordinate spans a range not far beyond the number
 * of entries: a stable counting sort per coordinate, the last first, each
 * pass skipped when the entries are in its order already (sorted input
 * costs one scan); qsort otherwise. */
static DRV_UNUSED void drv_sort_entries(drv_entry *e, int64_t n, int order)
{
    int64_t lo[DRV_MAX_ORDER] = {0}, hi[DRV_MAX_ORDER] = {0}, k, span = 0;
    drv_entry *from = e, *to, *tmp;
    int64_t *count;
    int d;
    if (order > DRV_MAX_ORDER)
        drv_die("%d modes; entries are sorted for at most %d", order, DRV_MAX_ORDER);
    drv_entry_order = order;
    if (n < 2)
        return;
    for (k = 1; k < n && drv_cmp_entry(&e[k - 1], &e[k]) <= 0; k++)
        ;
    if (k == n)
        return;
    for (d = 0; d < order; d++) {
        lo[d] = hi[d] = e[0].c[d];
        for (k = 1; k < n; k++) {
            if (e[k].c[d] < lo[d])
                lo[d] = e[k].c[d];
            if (e[k].c[d] > hi[d])
                hi[d] = e[k].c[d];
        }
        if ((uint64_t)hi[d] - (uint64_t)lo[d] >= (uint64_t)4 * (uint64_t)n + 65536) {
            qsort(e, (size_t)n, sizeof *e, drv_cmp_entry);
            return;
        }
        if (hi[d] - lo[d] + 1 > span)
            span = hi[d] - lo[d] + 1;
    }
    tmp = drv_alloc(n, sizeof *e);
    count = drv_alloc(span + 1, sizeof *count);
    to = tmp;
    for (d = order - 1; d >= 0; d--) {
        int64_t sum = 0, width = hi[d] - lo[d] + 1;
        if (drv_sorted_by(from, n, d))
            continue;
        memset(count, 0, (size_t)(width + 1) * sizeof *count);
        for (k = 0; k < n; k++)
            count[from[k].c[d] - lo[d] + 1]++;
        for (k = 0; k <= width; k++) {
            sum += count[k];
            count[k] = sum;
        }
        for (k = 0; k < n; k++)
            to[count[from[k].c[d] - lo[d]]++] = from[k];
        {
            drv_entry *t = from;
            from = to;
            to = t;
        }
    }
    if (from != e)
        memcpy(e, from, (size_t)n * sizeof *e);
    free(tmp);
    free(count);
}

static DRV_UNUSED void drv_storage_entry(drv_entries *s, int order, const int64_t *c, double v, int64_t at)
{
    int d;
    if (drv_keep != NULL) {
        if (drv_keep->n == drv_keep->cap)
            drv_die("more nonzero entries than nonzero values");
        for (d = 0; d < order; d++)
            drv_keep->coords[drv_keep->n * order + d] = c[d];
        drv_keep->values[drv_keep->n++] = v;
        return;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->e = drv_grow(s->e, s->cap, sizeof *s->e);
    }
    memset(&s->e[s->n], 0, sizeof s->e[s->n]);
    for (d = 0; d < order; d++)
        s->e[s->n].c[d] = c[d];
    s->e[s->n].v = v;
    s->e[s->n].at = at;
    s->n++;
}

/* Room for one entry per nonzero value of `values` (its first `total`),
 * the most a map that addresses each value once gives. */
static DRV_UNUSED void drv_entries_reserve(drv_entries *s, const drv_array *values, int64_t total)
{
    int64_t k, nonzero = 0;
    if (drv_keep != NULL || drv_print != NULL)
        return; /* the entries go to the caller's buffers, or into a sum */
    for (k = 0; k < total && k < values->len; k++)
        nonzero += drv_value_at(values, k) != 0.0;
    s->cap = nonzero > 0 ? nonzero : 1;
    s->e = drv_alloc(s->cap, sizeof *s->e);
}

/* What the loops of a storage check read besides the instance's arrays
 * (drv_check_rules prints them into a part, drv_parts_run). Parts that run
 * at once mark `addressed` with plain byte stores: a slot two of them
 * address gets the same byte from both, and no other byte is written (an
 * atomic store there kept GCC from holding the loop's pointers in
 * registers, and made the parts three times slower). */
typedef struct {
    const char *ctx;
    const drv_array *values;
    const int64_t *ext;
    unsigned char *addressed;
    drv_entries *entries;
} drv_storage;

/* One nonzero entry of the storage check: into fingerprint `fp`, or, when
 * it is NULL, into the check's entries (drv_storage_entry). */
static inline void drv_storage_add(const drv_storage *s, drv_fp *fp, int order, const int64_t *c, double v,
                                   int64_t at)
{
    if (fp != NULL)
        drv_fp_add(fp, order, c, v);
    else
        drv_storage_entry(s->entries, order, c, v, at);
}

/* A check's loop nest with its outermost loop over [lo, hi) (a "part"):
 * `arg` is what it reads besides the instance (a drv_storage for a storage
 * check, the context for a rule's), `fp` the fingerprint its entries go
 * to, or NULL. */
typedef void (*drv_part)(const void *arg, drv_fp *fp, int64_t lo, int64_t hi);

#ifdef DRV_THREADS
#include <pthread.h>

/* The least work (value slots) whose check runs on several threads, the
 * most threads, and the ranges per thread. */
#define DRV_PARALLEL_WORK 65536
#define DRV_MAX_THREADS 8
#define DRV_CHUNKS_PER_THREAD 8

/* One range of a part run on several threads: its fingerprint and its
 * stop's message. */
typedef struct {
    int64_t lo, hi;
    drv_fp fp;
    int failed;
    char message[sizeof drv_message];
} drv_chunk;

/* The ranges of one part, taken in turn by its threads. */
typedef struct {
    drv_part part;
    const void *arg;
    int fingerprinted;
    drv_chunk *chunks;
    int n;
    int next;   /* the next range to take (atomic) */
    int failed; /* the first range that stopped, or n (atomic) */
} drv_plan;

/* Takes ranges until none is left, each with a fingerprint of the
 * thread's own (and, for a storage check, a copy of its pointers). A range
 * after one that stopped is skipped: its result would not be looked at. */
static void *drv_parts_work(void *arg)
{
    drv_plan *plan = arg;
    drv_storage own;
    const void *part_arg = plan->arg;
    jmp_buf here, *volatile outer = drv_jump_at;
    int c;
    if (plan->fingerprinted) {
        own = *(const drv_storage *)plan->arg;
        part_arg = &own;
    }
    while ((c = __atomic_fetch_add(&plan->next, 1, __ATOMIC_RELAXED)) < plan->n) {
        drv_chunk *chunk = &plan->chunks[c];
        drv_fp fp = chunk->fp;
        if (c > __atomic_load_n(&plan->failed, __ATOMIC_RELAXED))
            continue;
        drv_jump_at = &here;
        if (setjmp(here)) {
            int first = __atomic_load_n(&plan->failed, __ATOMIC_RELAXED);
            chunk->failed = 1;
            memcpy(chunk->message, drv_message, sizeof chunk->message);
            while (c < first &&
                   !__atomic_compare_exchange_n(&plan->failed, &first, c, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                ;
            continue;
        }
        plan->part(part_arg, plan->fingerprinted ? &fp : NULL, chunk->lo, chunk->hi);
        chunk->fp = fp;
    }
    drv_jump_at = outer;
    return NULL;
}
#endif

/* Runs `part` over the outermost values [lo, hi), about `work` value slots
 * of it. With `split` (a rule's check, or a storage check whose entries
 * are only fingerprinted: into `fp`, of `order` coordinates) and much work,
 * the values are cut into contiguous ranges that up to one thread per
 * processor take in turn; the ranges' fingerprints add up into `fp` in
 * order (drv_fp_merge), and the first range's stop is the part's: the
 * stop a run on one thread meets first. */
static DRV_UNUSED void drv_parts_run(const char *ctx, drv_part part, const void *arg, drv_wide lo_w, drv_wide hi_w,
                                     int64_t work, int split, drv_fp *fp, int order)
{
    const int64_t lo = drv_narrow(ctx, lo_w);
    int64_t hi;
    if (hi_w <= (drv_wide)lo)
        return;
    hi = drv_narrow(ctx, hi_w);
#ifdef DRV_THREADS
    {
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        const int threads = cpus < 1 ? 1 : cpus > DRV_MAX_THREADS ? DRV_MAX_THREADS : (int)cpus;
        if (split && threads > 1 && work >= DRV_PARALLEL_WORK && hi - lo >= 2) {
            pthread_t ids[DRV_MAX_THREADS];
            int started[DRV_MAX_THREADS], t, c;
            drv_plan plan;
            plan.part = part;
            plan.arg = arg;
            plan.fingerprinted = fp != NULL;
            plan.n = (drv_wide)threads * DRV_CHUNKS_PER_THREAD < hi_w - lo_w ? threads * DRV_CHUNKS_PER_THREAD
                                                                             : (int)(hi - lo);
            plan.next = 0;
            plan.failed = plan.n;
            plan.chunks = drv_alloc(plan.n, sizeof *plan.chunks);
            for (c = 0; c < plan.n; c++) {
                drv_chunk *chunk = &plan.chunks[c];
                memset(chunk, 0, sizeof *chunk);
                chunk->lo = lo + (int64_t)(((drv_wide)hi - lo) * c / plan.n);
                chunk->hi = lo + (int64_t)(((drv_wide)hi - lo) * (c + 1) / plan.n);
                if (fp != NULL) {
                    chunk->fp.key = fp->key;
                    chunk->fp.watch = fp->watch;
                    chunk->fp.live = 0x3f;
                }
            }
            for (t = 1; t < threads; t++)
                started[t] = pthread_create(&ids[t], NULL, drv_parts_work, &plan) == 0;
            drv_parts_work(&plan);
            for (t = 1; t < threads; t++)
                if (started[t])
                    pthread_join(ids[t], NULL);
            if (plan.failed < plan.n) {
                char message[sizeof drv_message];
                memcpy(message, plan.chunks[plan.failed].message, sizeof message);
                free(plan.chunks);
                drv_die("%s", message);
            }
            for (c = 0; fp != NULL && c < plan.n; c++)
                drv_fp_merge(fp, &plan.chunks[c].fp, order);
            free(plan.chunks);
            return;
        }
    }
#endif
    (void)work;
    (void)split;
    (void)order;
    part(arg, fp, lo, hi);
}

/* "3, 1" of a position given row-major over `ext`. */
static DRV_UNUSED void drv_position_text(char *buf, size_t size, int64_t k, const int64_t *ext, int n)
{
    int64_t pos[8];
    int d, used = 0;
    for (d = n - 1; d >= 0; d--) {
        pos[d] = ext[d] > 0 ? k % ext[d] : 0;
        k = ext[d] > 0 ? k / ext[d] : 0;
    }
    buf[0] = '\0';
    for (d = 0; d < n && used >= 0 && (size_t)used < size; d++)
        used += snprintf(buf + used, size - (size_t)used, d ? ", %lld" : "%lld", (long long)pos[d]);
}

/* The number of values the extents give, which must be the array's length. */
static DRV_UNUSED int64_t drv_storage_total(const char *ctx, const drv_array *a, const int64_t *ext, int n)
{
    int64_t total = 1;
    int d;
    for (d = 0; d < n; d++) {
        if (ext[d] < 0)
            drv_die("%s: %s has a negative extent (%lld)", ctx, a->name, (long long)ext[d]);
        if (ext[d] != 0 && total > INT64_MAX / ext[d])
            drv_die("%s: %s's extents overflow", ctx, a->name);
        total *= ext[d];
    }
    if (a->len != total)
        drv_die("%s: %s has %lld values but its extents give %lld", ctx, a->name, (long long)a->len,
                (long long)total);
    return total;
}

/* Stops at an entry the destination cannot store: the message spf
 * convert gives (coordinates 1-based, as in the files). */
/* The 1-based coordinates `at` of n modes as text: `4, 12`. */
static DRV_UNUSED void drv_coords_text(char *out, size_t size, const int64_t *at, int n)
{
    int d, used = 0;
    out[0] = '\0';
    for (d = 0; d < n && used >= 0 && (size_t)used < size; d++)
        used += snprintf(out + used, size - (size_t)used, d ? ", %lld" : "%lld", (long long)at[d] + 1);
}

static DRV_UNUSED void drv_unrepresentable(const char *ctx, int n, const int64_t *at, const char *format,
                                           const char *conditions)
{
    char point[256];
    drv_coords_text(point, sizeof point, at, n);
    drv_die("%s: the entry at (%s) cannot be stored in %s: %s stores only entries with %s", ctx, point,
            format, format, conditions);
}

/* The entries of an input by group, for a destination whose groups hold at
 * most so many entries (a 2:4 format's blocks): each record is the group's
 * `g` keys, the entry's sequence number and its `d` coordinates. */
typedef struct {
    int64_t *rec;
    int64_t n, cap;
    int g, d;
} drv_groups;

static int drv_groups_width; /* the compared prefix of a record, for qsort */

static DRV_UNUSED void drv_groups_add(drv_groups *G, const int64_t *key, const int64_t *at)
{
    int64_t w = G->g + 1 + G->d, *r;
    if (G->n == G->cap) {
        int64_t cap = G->cap ? 2 * G->cap : 1024;
        int64_t *grown = (int64_t *)realloc(G->rec, (size_t)(cap * w) * sizeof *grown);
        if (grown == NULL)
            drv_die("out of memory counting the entries per group");
        G->rec = grown;
        G->cap = cap;
    }
    r = G->rec + G->n * w;
    memcpy(r, key, (size_t)G->g * sizeof *r);
    r[G->g] = G->n;
    memcpy(r + G->g + 1, at, (size_t)G->d * sizeof *r);
    G->n++;
}

static int drv_groups_cmp(const void *a, const void *b)
{
    const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
    int i;
    for (i = 0; i < drv_groups_width; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* Stops at the first entry, in input order, whose group already holds
 * `at_most` entries, naming them; frees the records. */
static DRV_UNUSED void drv_groups_check(drv_groups *G, int64_t at_most, const char *ctx, const char *format,
                                        const char *capacity)
{
    int64_t w = G->g + 1 + G->d, i, start, first = -1, first_start = 0;
    drv_groups_width = G->g + 1;
    if (G->n > 1)
        qsort(G->rec, (size_t)G->n, (size_t)w * sizeof *G->rec, drv_groups_cmp);
    for (start = 0; start < G->n; start = i) {
        for (i = start + 1; i < G->n && memcmp(G->rec + i * w, G->rec + start * w, (size_t)G->g * sizeof *G->rec) == 0;
             i++)
            ;
        if (i - start > at_most && (first < 0 || G->rec[(start + at_most) * w + G->g] < G->rec[first * w + G->g])) {
            first = start + at_most;
            first_start = start;
        }
    }
    if (first >= 0) {
        char point[256], fill[1024];
        size_t used = 0;
        drv_coords_text(point, sizeof point, G->rec + first * w + G->g + 1, G->d);
        fill[0] = '\0';
        for (i = first_start; i < first && used < sizeof fill; i++) {
            char one[256];
            drv_coords_text(one, sizeof one, G->rec + i * w + G->g + 1, G->d);
            used += (size_t)snprintf(fill + used, sizeof fill - used, i > first_start ? ", (%s)" : "(%s)", one);
        }
        drv_die("%s: the entry at (%s) cannot be stored in %s: %s stores %s, and the entries at %s already fill "
                "its group",
                ctx, point, format, format, capacity, fill);
    }
    free(G->rec);
    G->rec = NULL;
    G->n = G->cap = 0;
}

static DRV_UNUSED void drv_storage_outside(const char *ctx, const int64_t *v, int n_sparse, const char *name,
                                           const int64_t *pos, const int64_t *ext, int n)
{
    char point[256], at[256], extents[256];
    int d, used = 0;
    point[0] = at[0] = extents[0] = '\0';
    for (d = 0; d < n_sparse && used >= 0 && (size_t)used < sizeof point; d++)
        used += snprintf(point + used, sizeof point - (size_t)used, d ? ", %lld" : "%lld", (long long)v[d]);
    used = 0;
    for (d = 0; d < n && used >= 0 && (size_t)used < sizeof at; d++)
        used += snprintf(at + used, sizeof at - (size_t)used, d ? ", %lld" : "%lld", (long long)pos[d]);
    used = 0;
    for (d = 0; d < n && used >= 0 && (size_t)used < sizeof extents; d++)
        used += snprintf(extents + used, sizeof extents - (size_t)used, d ? " x %lld" : "%lld",
                         (long long)ext[d]);
    drv_die("%s: sparse point (%s) reads %s(%s), outside its extents %s", ctx, point, name, at, extents);
}

/* Whether the kept entries increase strictly in the lexicographic order
 * of some permutation of the coordinates (a CSC's entries do, columns
 * first): then no two share a coordinate, seen in one scan per order
 * tried. */
static DRV_UNUSED int drv_kept_distinct_by_some_order(const drv_kept *kept, int order)
{
    const int64_t *c = kept->coords;
    int64_t k;
    int p;
    if (order > 3)
        return 0;
    for (p = 0; p < drv_norders[order]; p++) {
        for (k = 1; k < kept->n && drv_after(&c[(k - 1) * order], &c[k * order], order, p); k++)
            ;
        if (k >= kept->n)
            return 1;
    }
    return 0;
}

/* Sorts the kept entries by coordinate (the first most significant) and
 * stops at two at one coordinate (the caller's own check then names them):
 * a stable counting sort of a permutation per coordinate, the last first,
 * each pass skipped when the entries are in its order already (sorted
 * entries cost one scan), then each array permuted through one buffer; a
 * comparison sort when a coordinate's span is far beyond the number of
 * entries. */
static DRV_UNUSED void drv_kept_sort(const char *ctx, drv_kept *kept, int order)
{
    int64_t n = kept->n, k, lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, span = 0, *count;
    int64_t *c = kept->coords;
    uint32_t *perm, *next;
    double *buf;
    int d, sorted = 1, compare = 0;
    for (k = 1; k < n && sorted; k++)
        for (d = 0; d < order; d++) {
            if (c[(k - 1) * order + d] != c[k * order + d]) {
                sorted = c[(k - 1) * order + d] < c[k * order + d];
                break;
            }
            if (d == order - 1)
                drv_die("%s: two nonzero entries at one coordinate", ctx);
        }
    if (sorted)
        return;
    if (drv_keep_unordered && drv_kept_distinct_by_some_order(kept, order))
        return;
    for (d = 0; d < order; d++) {
        lo[d] = hi[d] = c[d];
        for (k = 1; k < n; k++) {
            if (c[k * order + d] < lo[d])
                lo[d] = c[k * order + d];
            if (c[k * order + d] > hi[d])
                hi[d] = c[k * order + d];
        }
        if ((uint64_t)hi[d] - (uint64_t)lo[d] >= (uint64_t)4 * (uint64_t)n + 65536)
            compare = 1;
        else if (hi[d] - lo[d] + 1 > span)
            span = hi[d] - lo[d] + 1;
    }
    if (compare || (uint64_t)n > UINT32_MAX) {
        drv_entry *e = drv_alloc(n, sizeof *e);
        for (k = 0; k < n; k++) {
            for (d = 0; d < order; d++)
                e[k].c[d] = c[k * order + d];
            e[k].v = kept->values[k];
        }
        drv_entry_order = order;
        qsort(e, (size_t)n, sizeof *e, drv_cmp_entry);
        for (k = 0; k < n; k++) {
            for (d = 0; d < order; d++)
                c[k * order + d] = e[k].c[d];
            kept->values[k] = e[k].v;
        }
        free(e);
    } else {
        perm = drv_alloc(n, sizeof *perm);
        next = drv_alloc(n, sizeof *next);
        count = drv_alloc(span + 1, sizeof *count);
        for (k = 0; k < n; k++)
            perm[k] = (uint32_t)k;
        for (d = order - 1; d >= 0; d--) {
            int64_t sum = 0, width = hi[d] - lo[d] + 1;
            uint32_t *t;
            for (k = 1; k < n && c[(int64_t)perm[k - 1] * order + d] <= c[(int64_t)perm[k] * order + d]; k++)
                ;
            if (k >= n)
                continue;
            memset(count, 0, (size_t)(width + 1) * sizeof *count);
            for (k = 0; k < n; k++)
                count[c[(int64_t)perm[k] * order + d] - lo[d] + 1]++;
            for (k = 0; k <= width; k++) {
                sum += count[k];
                count[k] = sum;
            }
            for (k = 0; k < n; k++)
                next[count[c[(int64_t)perm[k] * order + d] - lo[d]]++] = perm[k];
            t = perm;
            perm = next;
            next = t;
        }
        free(next);
        free(count);
        /* Each array through one buffer: the coordinates column by column. */
        buf = drv_alloc(n, sizeof *buf);
        for (k = 0; k < n; k++)
            buf[k] = kept->values[perm[k]];
        memcpy(kept->values, buf, (size_t)n * sizeof *buf);
        for (d = 0; d < order; d++) {
            int64_t *col = (int64_t *)buf;
            for (k = 0; k < n; k++)
                col[k] = c[(int64_t)perm[k] * order + d];
            for (k = 0; k < n; k++)
                c[k * order + d] = col[k];
        }
        free(buf);
        free(perm);
    }
    for (k = 1; k < n; k++) {
        for (d = 0; d < order && c[(k - 1) * order + d] == c[k * order + d]; d++)
            ;
        if (d == order)
            drv_die("%s: two nonzero entries at one coordinate", ctx);
    }
}

/* After the map's points: no two nonzero entries at one coordinate, and no
 * nonzero value that no point addressed (the messages of spf convert). */
static DRV_UNUSED void drv_storage_finish(const char *ctx, const drv_array *values, unsigned char *addressed,
                                          int64_t total, drv_entries *s, int order, const int64_t *ext,
                                          int n, int padding)
{
    int64_t k;
    char a[256], b[256], c[256];
    if (drv_keep != NULL)
        drv_kept_sort(ctx, drv_keep, order);
    drv_sort_entries(s->e, s->n, order);
    for (k = 1; k < s->n; k++)
        if (drv_cmp_entry(&s->e[k - 1], &s->e[k]) == 0) {
            const drv_entry *x = &s->e[k - 1], *y = &s->e[k];
            if (x->at > y->at) {
                const drv_entry *t = x;
                x = y;
                y = t;
            }
            drv_entry_text(c, sizeof c, x, order);
            drv_position_text(a, sizeof a, x->at, ext, n);
            drv_position_text(b, sizeof b, y->at, ext, n);
            drv_die("%s: two nonzero entries at %s: %s(%s) = %.17g and %s(%s) = %.17g%s", ctx, c,
                    values->name, a, x->v, values->name, b, y->v,
                    padding ? " (padding slots must hold zeros)" : "");
        }
    for (k = 0; k < total; k++)
        if (!addressed[k] && drv_value_at(values, k) != 0.0) {
            drv_position_text(a, sizeof a, k, ext, n);
            drv_die("%s: %s(%s) = %.17g belongs to no stored entry (no point of the map addresses "
                    "it), so it would be lost; %s",
                    ctx, values->name, a, drv_value_at(values, k),
                    padding ? "slots outside the stored entries must hold zero"
                            : "do the pointer arrays start at 0 and end at the number of stored values?");
        }
    free(addressed);
    free(s->e);
}
