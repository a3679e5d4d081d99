/* ---------------------------------------------------------------------------
 * The driver of a conversion binary built by `spf build` (src/cli/driver.rs):
 * errors, allocation, instances, index widths and the fields of text lines;
 * driver_readers.c and driver_checks.c follow it. Every name starts with `drv_` (the synthesized functions above never use
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

static DRV_UNUSED void drv_admit(int64_t n, size_t size, uint64_t bytes);
static DRV_UNUSED uint64_t drv_growth(void *p, uint64_t bytes);

static DRV_UNUSED void *drv_alloc(int64_t n, size_t size)
{
    void *p;
    if (n < 0 || (uint64_t)n > SIZE_MAX / size)
        drv_too_large(n, size);
    drv_admit(n, size, (uint64_t)(n > 0 ? n : 1) * size);
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
    drv_admit(n, size, drv_growth(p, (uint64_t)(n > 0 ? n : 1) * size));
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

/* The values a scan for the first failing one tests at once, without a
 * branch (drv_first_lost, and the range and order checks spf prints). */
#define DRV_BLOCK 2048

/* The integer at `k` of the index array `a`, at whatever width it is held;
 * a check library compiled for one width (DRV_INDEX_WIDTH, 32 or 64: the
 * caller hands it only arrays held at that width, drv_held_at_width) reads
 * without asking. */
static inline int64_t drv_int(const drv_array *a, int64_t k)
{
#if defined(DRV_INDEX_WIDTH) && DRV_INDEX_WIDTH == 32
    return (int64_t)a->i32[k];
#elif defined(DRV_INDEX_WIDTH) && DRV_INDEX_WIDTH == 64
    return a->i[k];
#else
    return a->i32 != NULL ? (int64_t)a->i32[k] : a->i[k];
#endif
}

/* Whether an integer array given as `i` (64 bits) or `i32` (32 bits, or
 * NULL) is held at the width drv_int reads. */
static DRV_UNUSED int drv_held_at_width(const int64_t *i, const int32_t *i32)
{
#if defined(DRV_INDEX_WIDTH) && DRV_INDEX_WIDTH == 32
    (void)i;
    return i32 != NULL;
#elif defined(DRV_INDEX_WIDTH) && DRV_INDEX_WIDTH == 64
    return i32 == NULL && i != NULL;
#else
    (void)i;
    (void)i32;
    return 1;
#endif
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
 * array's length and each value of an index array (every array but
 * `values`, the value array) at most 2^31 - 1 in magnitude;
 * otherwise 0, with the first that does not described in what[0..size)
 * and its value in *value. */
static DRV_UNUSED int drv_fits_32(const drv_inst *x, const char *values, char *what, size_t size,
                                  int64_t *value)
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
        /* The value array's values are not indices. */
        if (strcmp(a->name, values) == 0)
            continue;
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

/* SPF_DIE: the runtime stops on its input (extents beyond what its
 * counting sort counts), with the words of spf convert's message. */
static DRV_UNUSED void drv_runtime_stop(const char *what, int64_t value)
{
    fprintf(stderr, "%s: spf runtime: %s (%lld)\n", drv_prog, what, (long long)value);
    exit(2);
}

/* ----- files and fields --------------------------------------------------- */

/* The bytes of the file at `path` (`-`: standard input), NUL-terminated. */
static DRV_UNUSED char *drv_slurp(const char *path, size_t *len)
{
    const int in = strcmp(path, "-") == 0;
    FILE *f = in ? stdin : fopen(path, "rb");
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
    if (!in)
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

/* Field text as a NUL-terminated string (for messages and names), whole
 * as spf's messages quote it; the last four stay valid. */
static DRV_UNUSED const char *drv_text(drv_field f)
{
    static char *buf[4];
    static size_t cap[4];
    static int which;
    const int w = which++ & 3;
    if (cap[w] < f.n + 1) {
        cap[w] = f.n + 1 > 256 ? f.n + 1 : 256;
        free(buf[w]);
        buf[w] = drv_alloc((int64_t)cap[w], 1);
    }
    memcpy(buf[w], f.p, f.n);
    buf[w][f.n] = '\0';
    return buf[w];
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
 * 2: not finite (`*out` holds the value: a word `inf`, `infinity` or `nan`
 * read by strtod, any case and signed, or a literal beyond a double's range). */
static DRV_UNUSED int drv_parse_f64(drv_field f, double *out)
{
    char small[128];
    char *buf = f.n < sizeof small ? small : drv_alloc((int64_t)f.n + 1, 1);
    size_t k = 0, digits = 0;
    int word = 0, result = 0;
    char *endp;
    memcpy(buf, f.p, f.n);
    buf[f.n] = '\0';
    /* A NUL byte would end the text strtod reads: it is not a number. */
    if (memchr(f.p, '\0', f.n) != NULL) {
        result = 1;
        goto done;
    }
    if (buf[k] == '+' || buf[k] == '-')
        k++;
    {
        const char *w = buf + k;
        if (drv_same_name(w, "inf") || drv_same_name(w, "infinity") || drv_same_name(w, "nan"))
            word = 1;
    }
    if (word) {
        *out = strtod(buf, &endp);
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

