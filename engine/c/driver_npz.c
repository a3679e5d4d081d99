/* ---------------------------------------------------------------------------
 * numpy's .npz archives in the programs spf build makes, in the layouts of
 * spf convert (synth::npz): scipy.sparse's `save_npz` layout for a format
 * that has one (the generated glue's drv_npz_layout tables say which keys
 * hold which of the format's arrays), spf's generic layout otherwise.
 *
 * Reading takes an archive as numpy writes it (its members found and
 * inflated by driver_zip.c: stored or deflated, zip64 or not); npy members
 * of version 1 to 3, any byte order, C or Fortran order; index arrays of
 * any integer dtype; values float64 (a program converts float64 values
 * only: another dtype is refused, naming spf convert), finite unless the
 * program runs with --allow-nonfinite. A scipy csr, csc or
 * bsr archive whose rows are out of order or hold an index twice, and
 * every scipy coo archive, are read as their entries (duplicates summed,
 * as scipy's sum_duplicates does) and take the coordinate path, so that
 * the conversion to the source restores the order, as spf convert's
 * reader does.
 *
 * Writing writes the destination's layout, members stored, through a
 * temporary file and a rename, as drv_write_json.
 * ------------------------------------------------------------------------- */

/* Which of a format's names an archive's keys hold (generated per format
 * by engine/src/program/npz.rs from synth::npz::layout). */
typedef struct {
    /* The format's name (the generic layout's `spf_format`). */
    const char *format;
    /* scipy's name of the layout (`csr`, ...), or NULL: the generic one. */
    const char *scipy;
    /* bsr's block shape (0 otherwise). */
    int64_t block_r, block_c;
    /* 1: scipy's dia, its values by column (data[k, j], row j - offsets[k]). */
    int dia;
    /* The key holding the index arrays as rows of one array (`coords`). */
    const char *stacked;
    /* The format's dense extents, in the order of scipy's `shape`. */
    const char *const *dense;
    /* Its symbols (the generic layout stores each). */
    const char *const *symbols;
    /* Its index arrays and the key of each, and whether each is a position
     * array (written at the position width). */
    const char *const *arrays;
    const char *const *keys;
    const int *positions;
    /* The symbols that are an index array's length, and that array's key. */
    const char *const *counts;
    const char *const *count_keys;
    /* The value array. */
    const char *values;
} drv_npz_layout;

/* ----- npy arrays ---------------------------------------------------------- */

/* One npy array of an archive. */
typedef struct {
    const char *key;
    char kind;  /* 'i', 'u', 'f', 'b', 'S', 'U' */
    int size;   /* bytes per element */
    int swap;   /* big-endian elements */
    int fortran;
    int ndim;
    int64_t shape[8];
    int64_t n;  /* elements */
    const unsigned char *data;
    unsigned char *owned; /* the inflated member, freed with the array */
} drv_npy;

static void drv_npy_error(const drv_zip *z, const char *key, const char *fmt, ...)
    DRV_NORETURN DRV_PRINTF(3, 4);
static void drv_npy_error(const drv_zip *z, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    drv_die("%s: array `%s` %s", z->path, key, msg);
}

/* The value of `field` in the npy header dict `h` (after its quote and
 * colon), or NULL. */
static const char *drv_npy_field(const char *h, const char *end, const char *field)
{
    size_t n = strlen(field);
    const char *p;
    for (p = h; p + n + 2 <= end; p++)
        if ((*p == '\'' || *p == '"') && memcmp(p + 1, field, n) == 0 && p[n + 1] == *p) {
            p += n + 2;
            while (p < end && (*p == ' ' || *p == ':'))
                p++;
            return p;
        }
    return NULL;
}

/* Reads array `key` (member `key.npy`); 0 when the archive has none. */
static int drv_npy_read(const drv_zip *z, const char *key, drv_npy *a)
{
    char name[300];
    uint64_t len, hlen, at, need;
    const unsigned char *m;
    const char *h, *he, *d, *f, *s;
    memset(a, 0, sizeof *a);
    a->key = key;
    snprintf(name, sizeof name, "%s.npy", key);
    m = drv_zip_member(z, name, &len, &a->owned);
    if (m == NULL)
        return 0;
    if (len < 10 || memcmp(m, "\x93NUMPY", 6) != 0)
        drv_npy_error(z, key, "is not a numpy array (no npy header)");
    if (m[6] == 1) {
        hlen = drv_le(m + 8, 2);
        at = 10;
    } else if (m[6] == 2 || m[6] == 3) {
        if (len < 12)
            drv_npy_error(z, key, "has a damaged npy header");
        hlen = drv_le(m + 8, 4);
        at = 12;
    } else {
        drv_npy_error(z, key, "has npy version %d, which spf does not read (1 to 3)", m[6]);
    }
    if (len - at < hlen)
        drv_npy_error(z, key, "has a damaged npy header");
    h = (const char *)m + at;
    he = h + hlen;
    d = drv_npy_field(h, he, "descr");
    f = drv_npy_field(h, he, "fortran_order");
    s = drv_npy_field(h, he, "shape");
    if (d == NULL || f == NULL || s == NULL || (*d != '\'' && *d != '"'))
        drv_npy_error(z, key, "has an npy header without descr, fortran_order and shape (a "
                              "structured dtype?)");
    {
        const char q = *d++;
        const char *e = d;
        while (e < he && *e != q)
            e++;
        if (e - d < 2 || e == he || strchr("<>|=", d[0]) == NULL)
            drv_npy_error(z, key, "has a dtype spf does not read");
        a->swap = d[0] == '>';
        a->kind = d[1];
        a->size = 0;
        for (d += 2; d < e && *d >= '0' && *d <= '9' && a->size < 1 << 20; d++)
            a->size = 10 * a->size + (*d - '0');
        if (d != e || a->size < 1 || strchr("iufbSU", a->kind) == NULL)
            drv_npy_error(z, key, "has a dtype spf does not read");
        if (a->kind == 'U')
            a->size *= 4;
    }
    a->fortran = strncmp(f, "True", 4) == 0;
    if (*s != '(')
        drv_npy_error(z, key, "has a damaged shape");
    a->n = 1;
    for (s++;;) {
        int64_t v = 0;
        while (s < he && *s == ' ')
            s++;
        if (s < he && *s == ')')
            break;
        if (s == he || *s < '0' || *s > '9' || a->ndim == 8)
            drv_npy_error(z, key, "has a damaged shape");
        while (s < he && *s >= '0' && *s <= '9') {
            if (v > (INT64_MAX - 9) / 10)
                drv_npy_error(z, key, "has a shape beyond any file");
            v = 10 * v + (*s++ - '0');
        }
        a->shape[a->ndim++] = v;
        if (v != 0 && a->n > INT64_MAX / v)
            drv_npy_error(z, key, "has a shape beyond any file");
        a->n *= v;
        while (s < he && (*s == ' ' || *s == ','))
            s++;
    }
    need = (uint64_t)a->n * (uint64_t)a->size;
    if (a->n > 0 && need / (uint64_t)a->n != (uint64_t)a->size)
        drv_npy_error(z, key, "has a shape beyond any file");
    if (len - at - hlen < need)
        drv_npy_error(z, key, "holds fewer values than its shape says");
    a->data = m + at + hlen;
    return 1;
}

/* Whether the archive has array `key`. */
static int drv_npy_has(const drv_zip *z, const char *key)
{
    char name[300];
    int method;
    uint32_t crc;
    uint64_t csize, usize, local;
    snprintf(name, sizeof name, "%s.npy", key);
    return drv_zip_find(z, name, &method, &crc, &csize, &usize, &local);
}

static void drv_npy_free(drv_npy *a)
{
    free(a->owned);
    memset(a, 0, sizeof *a);
}


/* The offset of element `e` (in C order) in the array's storage. */
static int64_t drv_npy_at(const drv_npy *a, int64_t e)
{
    int64_t off = 0, stride = 1, idx[8];
    int k;
    if (!a->fortran || a->ndim < 2)
        return e;
    for (k = a->ndim - 1; k >= 0; k--) {
        idx[k] = e % a->shape[k];
        e /= a->shape[k];
    }
    for (k = 0; k < a->ndim; k++) {
        off += idx[k] * stride;
        stride *= a->shape[k];
    }
    return off;
}

/* The raw element at storage offset `at`, as an unsigned integer of its
 * size (1 to 8 bytes), byte order applied. */
static uint64_t drv_npy_raw(const drv_npy *a, int64_t at)
{
    const unsigned char *p = a->data + at * a->size;
    uint64_t v = 0;
    int k;
    if (a->swap)
        for (k = 0; k < a->size; k++)
            v = v << 8 | p[k];
    else
        v = drv_le(p, a->size);
    return v;
}

/* The array's integers (any integer dtype), in C order. */
static int64_t *drv_npy_ints(const drv_zip *z, const drv_npy *a)
{
    int64_t *v, e;
    if ((a->kind != 'i' && a->kind != 'u') || a->size > 8 || (a->size & (a->size - 1)) != 0)
        drv_npy_error(z, a->key, "holds %c%d values, but an index array holds integers",
                      a->kind, a->size);
    v = drv_alloc(a->n, sizeof *v);
    if (a->kind == 'i' && a->size == 8 && !a->swap && !(a->fortran && a->ndim > 1)) {
        memcpy(v, a->data, (size_t)a->n * 8);
        return v;
    }
    /* scipy's int32 indices, widened without the general path's work per
       element */
    if (a->kind == 'i' && a->size == 4 && !a->swap && !(a->fortran && a->ndim > 1)) {
        for (e = 0; e < a->n; e++) {
            int32_t t;
            memcpy(&t, a->data + 4 * e, 4);
            v[e] = t;
        }
        return v;
    }
    for (e = 0; e < a->n; e++) {
        uint64_t r = drv_npy_raw(a, drv_npy_at(a, e));
        if (a->kind == 'i' && a->size < 8 && (r >> (8 * a->size - 1)) & 1)
            r |= ~(uint64_t)0 << (8 * a->size); /* sign extension */
        if (a->kind == 'u' && r > (uint64_t)INT64_MAX)
            drv_npy_error(z, a->key, "holds %llu at %lld, beyond the int64 range",
                          (unsigned long long)r, (long long)e);
        v[e] = (int64_t)r;
    }
    return v;
}

/* The array's float64 values, in C order. */
static double *drv_npy_reals(const drv_zip *z, const drv_npy *a)
{
    double *v;
    int64_t e;
    if (a->kind != 'f' || a->size != 8)
        drv_npy_error(z, a->key,
                      "holds %c%d values; a program spf build makes converts float64 values "
                      "only (spf convert keeps the dtype: `spf convert SRC DST %s`)",
                      a->kind, a->size, z->path);
    v = drv_alloc(a->n, sizeof *v);
    if (!a->swap && !(a->fortran && a->ndim > 1)) {
        memcpy(v, a->data, (size_t)a->n * 8);
    } else {
        for (e = 0; e < a->n; e++) {
            uint64_t r = drv_npy_raw(a, drv_npy_at(a, e));
            memcpy(&v[e], &r, 8);
        }
    }
    for (e = 0; !drv_allow_nonfinite && e < a->n; e++)
        if (!isfinite(v[e]))
            drv_npy_error(z, a->key,
                          "holds %s at %lld (0-based), not a finite number (NaN and infinities "
                          "are accepted with --allow-nonfinite)",
                          isnan(v[e]) ? "NaN" : v[e] > 0 ? "inf" : "-inf", (long long)e);
    return v;
}

/* A text scalar (numpy's b"csr" or "csr") as ASCII, or NULL without the
 * member. */
static char *drv_npy_text(const drv_zip *z, const char *key)
{
    drv_npy a;
    char *t;
    int64_t k, n;
    if (!drv_npy_read(z, key, &a))
        return NULL;
    if ((a.kind != 'S' && a.kind != 'U') || a.n != 1)
        drv_npy_error(z, key, "is not a text scalar");
    n = a.kind == 'U' ? a.size / 4 : a.size;
    t = drv_alloc(n + 1, 1);
    for (k = 0; k < n; k++) {
        uint64_t ch = a.kind == 'U' ? drv_le(a.data + 4 * k, 4) : a.data[k];
        if (a.kind == 'U' && a.swap)
            ch = (uint64_t)a.data[4 * k] << 24 | (uint64_t)a.data[4 * k + 1] << 16 |
                 (uint64_t)a.data[4 * k + 2] << 8 | a.data[4 * k + 3];
        if (ch == 0)
            break;
        t[k] = ch < 128 ? (char)ch : '?';
    }
    t[k] = '\0';
    drv_npy_free(&a);
    return t;
}

/* An array the layout needs, refused when absent. */
static void drv_npy_need(const drv_zip *z, const char *key, drv_npy *a, const char *hint)
{
    if (!drv_npy_read(z, key, a))
        drv_die("%s: the archive has no array `%s`%s", z->path, key, hint);
}

static int64_t *drv_npy_need_ints(const drv_zip *z, const char *key, int64_t *len,
                                  const char *hint)
{
    drv_npy a;
    int64_t *v;
    drv_npy_need(z, key, &a, hint);
    if (a.ndim != 1)
        drv_npy_error(z, key, "has %d dimensions, but it is a 1-d array", a.ndim);
    v = drv_npy_ints(z, &a);
    *len = a.n;
    drv_npy_free(&a);
    return v;
}

/* ----- scipy's compressed layouts as their entries ------------------------ */

/* Whether every row (column, block row) of `ptr`/`idx` is in increasing
 * order without a repeated index; a structure that is not a compressed
 * one (validation reports it) counts as ordered. */
static int drv_rows_ordered(const int64_t *ptr, int64_t rows, const int64_t *idx, int64_t nnz)
{
    int64_t r, k;
    if (ptr[0] != 0 || ptr[rows] != nnz)
        return 1;
    for (r = 0; r < rows; r++) {
        if (ptr[r + 1] < ptr[r] || ptr[r + 1] > nnz)
            return 1;
    }
    for (r = 0; r < rows; r++)
        for (k = ptr[r] + 1; k < ptr[r + 1]; k++)
            if (idx[k] <= idx[k - 1])
                return 0;
    return 1;
}

/* Adds one entry read from an archive, its indices checked against the
 * extents (`at` names the array element that holds it, for messages). */
static void drv_npz_entry(drv_coords *c, const int64_t *ix, double v, int64_t e,
                          const char *const *keys, const int64_t *at)
{
    int d;
    for (d = 0; d < c->order; d++)
        if (ix[d] < 0 || ix[d] >= c->dims[d])
            drv_die("%s: array `%s` holds %lld at %lld (0-based), outside 0..%lld, the extent "
                    "of dimension %d",
                    c->path, keys[d], (long long)ix[d], (long long)at[d], (long long)c->dims[d],
                    d + 1);
    drv_coords_add(c, ix, v, e + 1);
}

/* ----- reading a layout --------------------------------------------------- */

static int drv_npz_count(const char *const *names)
{
    int n = 0;
    while (names[n] != NULL)
        n++;
    return n;
}

/* The index arrays of a scipy archive, by the layout's keys: each its own
 * member, or the rows of `coords`. */
static void drv_scipy_index(const drv_zip *z, const drv_npz_layout *L, int64_t **ix,
                            int64_t *len, const char *hint)
{
    const int n = drv_npz_count(L->keys);
    /* scipy writes a coo array's indices as `coords`, of any order */
    const char *stacked = L->stacked != NULL ? L->stacked
                          : strcmp(L->scipy, "coo") == 0 ? "coords"
                                                        : NULL;
    drv_npy probe;
    int k;
    if (stacked != NULL && !drv_npy_has(z, L->keys[0]) && drv_npy_read(z, stacked, &probe)) {
        int64_t *all, e;
        if (probe.ndim != 2 || probe.shape[0] != n)
            drv_npy_error(z, stacked, "has shape (%lld, ...), but it is (%d dimensions, entries)",
                          (long long)(probe.ndim > 0 ? probe.shape[0] : 0), n);
        all = drv_npy_ints(z, &probe);
        for (k = 0; k < n; k++) {
            len[k] = probe.shape[1];
            ix[k] = drv_alloc(len[k], sizeof **ix);
            for (e = 0; e < len[k]; e++)
                ix[k][e] = all[k * len[k] + e];
        }
        free(all);
        drv_npy_free(&probe);
        return;
    }
    for (k = 0; k < n; k++)
        ix[k] = drv_npy_need_ints(z, L->keys[k], &len[k], hint);
}

/* scipy's dia values (data[k, j], row j - offsets[k], offsets in any
 * order) as spf's (A(i, d) at column i + off(d), offsets increasing). */
static double *drv_dia_by_row(const drv_zip *z, const drv_npz_layout *L, int64_t *off, int64_t nd,
                              const drv_npy *data, int64_t m)
{
    int64_t *order = drv_alloc(nd > 0 ? nd : 1, sizeof *order), *sorted, k, d, i, l;
    double *by_col, *v;
    if (data->ndim != 2)
        drv_npy_error(z, "data", "has %d dimensions, but a dia matrix's is (diagonals, columns)",
                      data->ndim);
    if (data->shape[0] != nd)
        drv_npy_error(z, "data", "has %lld rows, but `%s` lists %lld diagonals",
                      (long long)data->shape[0], L->keys[0], (long long)nd);
    l = data->shape[1];
    for (k = 0; k < nd; k++) { /* insertion sort: a handful of diagonals */
        int64_t at = k;
        while (at > 0 && off[order[at - 1]] > off[k]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = k;
    }
    for (k = 1; k < nd; k++)
        if (off[order[k]] == off[order[k - 1]])
            drv_npy_error(z, L->keys[0], "lists the diagonal %lld twice",
                          (long long)off[order[k]]);
    if (m > 0 && nd > INT64_MAX / m)
        drv_npy_error(z, "shape", "says %lld rows of %lld diagonals, more values than memory holds",
                      (long long)m, (long long)nd);
    by_col = drv_npy_reals(z, data);
    v = drv_alloc(m * nd, sizeof *v);
    for (i = 0; i < m; i++)
        for (d = 0; d < nd; d++) {
            const int64_t j = i + off[order[d]];
            v[i * nd + d] = j >= 0 && j < l ? by_col[order[d] * l + j] : 0.0;
        }
    sorted = drv_alloc(nd > 0 ? nd : 1, sizeof *sorted);
    for (d = 0; d < nd; d++)
        sorted[d] = off[order[d]];
    memcpy(off, sorted, (size_t)nd * sizeof *off);
    free(sorted);
    free(order);
    free(by_col);
    return v;
}

/* A compressed scipy archive's entries (rows, columns or block rows `ptr`
 * over `idx`), into `c`. */
static void drv_compressed_entries(const char *scipy, const drv_npz_layout *L, int64_t *const *ix,
                                   const double *val, int64_t rows, drv_coords *c)
{
    const int64_t *ptr = ix[0], *idx = ix[1];
    const int64_t r = L->block_r > 0 ? L->block_r : 1, cc = L->block_c > 0 ? L->block_c : 1;
    const int columns = strcmp(scipy, "csc") == 0;
    const char *keys[2];
    int64_t row, k, a, b, at[2], e[2];
    keys[0] = columns ? L->keys[1] : L->keys[0];
    keys[1] = columns ? L->keys[0] : L->keys[1];
    for (row = 0; row < rows; row++)
        for (k = ptr[row]; k < ptr[row + 1]; k++) {
            /* a block index past the extent, refused before it is scaled */
            const int64_t extent = c->dims[columns ? 0 : 1];
            if (idx[k] < 0 || idx[k] > extent / cc)
                drv_die("%s: array `%s` holds %lld at %lld (0-based), outside 0..%lld",
                        c->path, L->keys[1], (long long)idx[k], (long long)k,
                        (long long)((extent + cc - 1) / cc));
            for (a = 0; a < r; a++)
                for (b = 0; b < cc; b++) {
                    const int64_t outer = r * row + a, inner = cc * idx[k] + b;
                    e[0] = columns ? inner : outer;
                    e[1] = columns ? outer : inner;
                    at[0] = columns ? k : row;
                    at[1] = columns ? row : k;
                    drv_npz_entry(c, e, val[(k * r + a) * cc + b], k, keys, at);
                }
        }
}

/* Reads a scipy archive of `format` (lowercase) as L's format: into `x`,
 * or into `c` (returning 1) when its entries take the coordinate path. */
static int drv_read_scipy(const drv_zip *z, const char *format, const drv_npz_layout *L,
                          int coordinates, drv_inst *x, drv_coords *c)
{
    const int nk = drv_npz_count(L->keys), ndense = drv_npz_count(L->dense);
    int64_t *shape, nshape, *ix[8], len[8], k;
    double *val;
    drv_npy data;
    char hint[128];
    int entries = 0;
    if (L->scipy == NULL || (strcmp(format, L->scipy) != 0 &&
                             !(strcmp(format, "bsr") == 0 && strcmp(L->scipy, "csr") == 0)))
        drv_die("%s: the archive holds a scipy `%s` matrix, and %s %s; spf convert names the "
                "formats that read it (`spf convert %s DST %s`)",
                z->path, format, L->format,
                L->scipy == NULL ? "has no scipy layout"
                                 : "has another scipy layout",
                L->format, z->path);
    drv_npy_need(z, "data", &data, " (a scipy matrix stores it)");
    if (strcmp(format, "bsr") == 0) {
        const int64_t br = data.ndim == 3 ? data.shape[1] : -1, bc = data.ndim == 3 ? data.shape[2] : -1;
        if (data.ndim != 3)
            drv_npy_error(z, "data", "has %d dimensions, but a bsr matrix's is (blocks, rows, "
                                     "columns)", data.ndim);
        /* 1 x 1 blocks are a csr's arrays */
        if (strcmp(L->scipy, "csr") == 0 ? br != 1 || bc != 1
                                         : br != L->block_r || bc != L->block_c) {
            /* the built-in that reads it, as spf convert names it */
            char name[64];
            if (br == 1 && bc == 1)
                snprintf(name, sizeof name, "csr");
            else if (br == 2 && bc == 2)
                snprintf(name, sizeof name, "bcsr");
            else
                snprintf(name, sizeof name, "bcsr%lldx%lld", (long long)br, (long long)bc);
            if (br < 1 || bc < 1 || (br < 2 && bc >= 2) || (bc < 2 && br >= 2))
                drv_die("%s: the archive holds a bsr matrix of %lld x %lld blocks, and this "
                        "program converts %s; spf's BCSR converts blocks of two rows and two "
                        "columns or more: save it as a csr (`tocsr()`)",
                        z->path, (long long)br, (long long)bc, L->format);
            drv_die("%s: the archive holds a bsr matrix of %lld x %lld blocks, and this program "
                    "converts %s; spf convert reads it as %s (`spf convert %s DST %s`), and "
                    "`spf build %s DST` builds the program that does",
                    z->path, (long long)br, (long long)bc, L->format, name, name, z->path, name);
        }
    } else if (!L->dia && data.ndim != 1) {
        drv_npy_error(z, "data", "has %d dimensions, but it is a 1-d array", data.ndim);
    }
    shape = drv_npy_need_ints(z, "shape", &nshape, " (a scipy matrix stores it)");
    if (nshape != ndense)
        drv_die("%s: the archive holds a scipy `%s` array of %lld dimensions, and %s has %d",
                z->path, format, (long long)nshape, L->format, ndense);
    for (k = 0; k < nshape; k++)
        if (shape[k] < 0)
            drv_npy_error(z, "shape", "holds a negative extent");
    snprintf(hint, sizeof hint, " (a scipy `%s` matrix stores it)", format);
    drv_scipy_index(z, L, ix, len, hint);
    if (L->dia) {
        val = drv_dia_by_row(z, L, ix[0], len[0], &data, shape[0]);
    } else {
        val = drv_npy_reals(z, &data);
        if (strcmp(format, "coo") == 0) {
            entries = 1;
        } else if (L->scipy != NULL && strcmp(L->scipy, "coo") != 0 && nk == 2) {
            /* csr, csc, bsr: sorted and distinct, or read as entries */
            const int64_t outer = strcmp(format, "csc") == 0 ? shape[1] : shape[0];
            const int64_t rows = strcmp(format, "bsr") == 0 && L->block_r > 0
                                     ? (outer + L->block_r - 1) / L->block_r
                                     : outer;
            entries = len[0] == rows + 1 && !drv_rows_ordered(ix[0], rows, ix[1], len[1]);
        }
    }
    if (entries) {
        if (!coordinates)
            drv_die("%s: the scipy `%s` matrix is not in order (or holds an entry twice), and %s "
                    "reads no coordinates; spf convert reads it",
                    z->path, format, L->format);
        memset(c, 0, sizeof *c);
        c->order = (int)nshape;
        c->path = z->path;
        c->by_entry = 1;
        for (k = 0; k < nshape; k++)
            c->dims[k] = shape[k];
        if (strcmp(format, "coo") == 0) {
            int64_t e, ent[8], at[8];
            for (k = 0; k < nk; k++)
                if (len[k] != data.n)
                    drv_npy_error(z, L->keys[k], "has %lld values, and `data` %lld",
                                  (long long)len[k], (long long)data.n);
            for (e = 0; e < data.n; e++) {
                for (k = 0; k < nk; k++) {
                    ent[k] = ix[k][e];
                    at[k] = e;
                }
                drv_npz_entry(c, ent, val[e], e, L->keys, at);
            }
        } else {
            const int64_t outer = strcmp(format, "csc") == 0 ? shape[1] : shape[0];
            const int64_t rows = L->block_r > 0 ? (outer + L->block_r - 1) / L->block_r : outer;
            const int64_t per = (L->block_r > 0 ? L->block_r : 1) * (L->block_c > 0 ? L->block_c : 1);
            if (len[1] * per != data.n)
                drv_npy_error(z, "data", "holds %lld values, and `%s` lists %lld entries",
                              (long long)data.n, L->keys[1], (long long)len[1]);
            drv_compressed_entries(format, L, ix, val, rows, c);
        }
        drv_coords_report(c);
        for (k = 0; k < nk; k++)
            free(ix[k]);
        free(val);
        free(shape);
        drv_npy_free(&data);
        return 1;
    }
    drv_inst_init(x, L->format);
    for (k = 0; k < ndense; k++)
        drv_set_symbol(x, L->dense[k], shape[k]);
    for (k = 0; L->counts[k] != NULL; k++) {
        int a;
        for (a = 0; a < nk; a++)
            if (strcmp(L->keys[a], L->count_keys[k]) == 0)
                drv_set_symbol(x, L->counts[k], len[a]);
    }
    for (k = 0; k < nk; k++)
        drv_put_ints(x, L->arrays[k], ix[k], len[k]);
    drv_put_reals(x, L->values, val, L->dia ? shape[0] * len[0] : data.n);
    free(shape);
    drv_npy_free(&data);
    return 0;
}

/* Reads an archive in spf's generic layout as L's format. */
static void drv_read_generic(const drv_zip *z, const char *format, const drv_npz_layout *L,
                             drv_inst *x)
{
    char hint[256];
    int64_t k, n;
    drv_npy a;
    if (strcmp(format, L->format) != 0)
        drv_die("%s: the archive holds an instance of %s (spf's generic layout), not of %s",
                z->path, format, L->format);
    drv_inst_init(x, L->format);
    snprintf(hint, sizeof hint, " (a symbol of %s, in spf's generic layout)", L->format);
    for (k = 0; L->symbols[k] != NULL; k++) {
        int64_t *v;
        drv_npy_need(z, L->symbols[k], &a, hint);
        v = drv_npy_ints(z, &a);
        if (a.n != 1)
            drv_npy_error(z, L->symbols[k], "holds %lld values, but a symbol is one integer",
                          (long long)a.n);
        drv_set_symbol(x, L->symbols[k], v[0]);
        free(v);
        drv_npy_free(&a);
    }
    snprintf(hint, sizeof hint, " (an index array of %s, in spf's generic layout)", L->format);
    for (k = 0; L->arrays[k] != NULL; k++) {
        drv_npy_need(z, L->arrays[k], &a, hint);
        drv_put_ints(x, L->arrays[k], drv_npy_ints(z, &a), a.n);
        drv_npy_free(&a);
    }
    snprintf(hint, sizeof hint, " (the value array of %s, in spf's generic layout)", L->format);
    drv_npy_need(z, L->values, &a, hint);
    n = a.n;
    drv_put_reals(x, L->values, drv_npy_reals(z, &a), n);
    drv_npy_free(&a);
}

/* Reads the archive `bytes` as an instance of L's format into `x`, or, when
 * its entries take the coordinate path (`coordinates`: the program reads
 * coordinates), into `c`, returning 1. */
static DRV_UNUSED int drv_read_npz(const char *path, const char *bytes, size_t len,
                                   const drv_npz_layout *L, int coordinates, drv_inst *x,
                                   drv_coords *c)
{
    drv_zip z;
    char *format;
    drv_zip_open(&z, path, bytes, len);
    format = drv_npy_text(&z, "format");
    if (format != NULL) {
        int r;
        char *p;
        for (p = format; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        r = drv_read_scipy(&z, format, L, coordinates, x, c);
        free(format);
        return r;
    }
    format = drv_npy_text(&z, "spf_format");
    if (format == NULL)
        drv_die("%s: the archive is neither a scipy.sparse matrix (no `format` array) nor an spf "
                "instance (no `spf_format` array)",
                path);
    drv_read_generic(&z, format, L, x);
    free(format);
    return 0;
}

/* ----- writing archives --------------------------------------------------- */

/* One member to write: a header and `n` elements of `size` bytes. */
typedef struct {
    char name[300];
    char header[256];
    size_t hlen;
    int64_t n;
    int size;
    const int64_t *ints;  /* integers, written at `size` bytes */
    const double *reals;  /* or float64 values */
    const char *text;     /* or text (|S), or a flag (|b1) */
    int flag;
    uint32_t crc;
    uint64_t bytes, offset;
} drv_npz_out;

/* Sets the member's npy header: numpy's version 1.0, padded with spaces
 * to a multiple of 64 bytes, as numpy pads it. */
static void drv_npz_header(drv_npz_out *m, const char *key, const char *descr, int ndim,
                           const int64_t *shape)
{
    char dims[128];
    size_t used = 0, len;
    int k;
    snprintf(m->name, sizeof m->name, "%s.npy", key);
    used += (size_t)snprintf(dims, sizeof dims, "(");
    for (k = 0; k < ndim; k++)
        used += (size_t)snprintf(dims + used, sizeof dims - used, k ? ", %lld" : "%lld",
                                 (long long)shape[k]);
    snprintf(dims + used, sizeof dims - used, ndim == 1 ? ",)" : ")");
    memcpy(m->header, "\x93NUMPY\x01\x00", 8);
    len = (size_t)snprintf(m->header + 10, sizeof m->header - 10,
                           "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, dims);
    while ((10 + len + 1) % 64 != 0)
        m->header[10 + len++] = ' ';
    m->header[10 + len++] = '\n';
    drv_put_le((unsigned char *)m->header + 8, len, 2);
    m->hlen = 10 + len;
}

static void drv_npz_ints(drv_npz_out *m, const char *key, int ndim, const int64_t *shape,
                         const int64_t *v, int64_t n, int bits)
{
    memset(m, 0, sizeof *m);
    drv_npz_header(m, key, bits == 32 ? "<i4" : "<i8", ndim, shape);
    m->ints = v;
    m->n = n;
    m->size = bits / 8;
}

static void drv_npz_reals(drv_npz_out *m, const char *key, int ndim, const int64_t *shape,
                          const double *v, int64_t n)
{
    memset(m, 0, sizeof *m);
    drv_npz_header(m, key, "<f8", ndim, shape);
    m->reals = v;
    m->n = n;
    m->size = 8;
}

static void drv_npz_text(drv_npz_out *m, const char *key, const char *text)
{
    char descr[32];
    memset(m, 0, sizeof *m);
    snprintf(descr, sizeof descr, "|S%d", (int)(strlen(text) > 0 ? strlen(text) : 1));
    drv_npz_header(m, key, descr, 0, NULL);
    m->text = text;
    m->n = 1;
    m->size = (int)(strlen(text) > 0 ? strlen(text) : 1);
}

static void drv_npz_flag(drv_npz_out *m, const char *key, int flag)
{
    memset(m, 0, sizeof *m);
    drv_npz_header(m, key, "|b1", 0, NULL);
    m->flag = flag;
    m->n = 1;
    m->size = 1;
}

/* Elements [from, from + n) of the member, as bytes. */
static void drv_npz_fill(const drv_npz_out *m, int64_t from, int64_t n, unsigned char *out)
{
    int64_t e;
    if (m->ints != NULL) {
        for (e = 0; e < n; e++)
            drv_put_le(out + e * m->size, (uint64_t)m->ints[from + e], m->size);
    } else if (m->reals != NULL) {
        for (e = 0; e < n; e++) {
            uint64_t bits;
            memcpy(&bits, &m->reals[from + e], 8);
            drv_put_le(out + e * 8, bits, 8);
        }
    } else if (m->text != NULL) {
        memset(out, 0, (size_t)m->size);
        memcpy(out, m->text, strlen(m->text));
    } else {
        out[0] = (unsigned char)(m->flag != 0);
    }
}

#define DRV_NPZ_CHUNK 8192

/* Writes the member's header and elements to `f` (when not NULL) and
 * returns their CRC. */
static uint32_t drv_npz_emit(const drv_npz_out *m, FILE *f, unsigned char *buf)
{
    uint32_t crc = drv_crc_update(0, (const unsigned char *)m->header, m->hlen);
    int64_t e, step = m->size > 0 ? DRV_NPZ_CHUNK : 1;
    if (f != NULL)
        fwrite(m->header, 1, m->hlen, f);
    if (m->text != NULL || (m->ints == NULL && m->reals == NULL))
        step = 1;
    for (e = 0; e < m->n; e += step) {
        const int64_t n = m->n - e < step ? m->n - e : step;
        drv_npz_fill(m, e, n, buf);
        crc = drv_crc_update(crc, buf, (size_t)(n * m->size));
        if (f != NULL)
            fwrite(buf, 1, (size_t)(n * m->size), f);
    }
    return crc;
}

/* Writes `members` as a zip archive (stored; zip64 where a size or an
 * offset needs it) through a temporary file and a rename. */
static void drv_zip_write(const char *path, drv_npz_out *members, int count)
{
    unsigned char *buf = drv_alloc(DRV_NPZ_CHUNK * 8 + 64, 1), h[128];
    uint64_t at = 0, cd_at, cd_size = 0;
    char *tmp;
    FILE *f = drv_open_output(path, &tmp);
    int k;
    for (k = 0; k < count; k++) {
        drv_npz_out *m = &members[k];
        const size_t nlen = strlen(m->name);
        const int big = m->hlen + (uint64_t)m->n * (uint64_t)m->size >= 0xFFFFFFFFu;
        m->bytes = m->hlen + (uint64_t)m->n * (uint64_t)m->size;
        m->crc = drv_npz_emit(m, NULL, buf);
        m->offset = at;
        memset(h, 0, 30);
        memcpy(h, "PK\x03\x04", 4);
        drv_put_le(h + 4, big ? 45 : 20, 2);
        drv_put_le(h + 12, 0x21, 2); /* 1980-01-01 */
        drv_put_le(h + 14, m->crc, 4);
        drv_put_le(h + 18, big ? 0xFFFFFFFFu : m->bytes, 4);
        drv_put_le(h + 22, big ? 0xFFFFFFFFu : m->bytes, 4);
        drv_put_le(h + 26, nlen, 2);
        drv_put_le(h + 28, big ? 20 : 0, 2);
        fwrite(h, 1, 30, f);
        fwrite(m->name, 1, nlen, f);
        if (big) {
            drv_put_le(h, 1, 2);
            drv_put_le(h + 2, 16, 2);
            drv_put_le(h + 4, m->bytes, 8);
            drv_put_le(h + 12, m->bytes, 8);
            fwrite(h, 1, 20, f);
        }
        drv_npz_emit(m, f, buf);
        at += 30 + nlen + (big ? 20 : 0) + m->bytes;
    }
    cd_at = at;
    for (k = 0; k < count; k++) {
        const drv_npz_out *m = &members[k];
        const size_t nlen = strlen(m->name);
        const int big = m->bytes >= 0xFFFFFFFFu, far = m->offset >= 0xFFFFFFFFu;
        const int extra = (big ? 16 : 0) + (far ? 8 : 0);
        memset(h, 0, 46);
        memcpy(h, "PK\x01\x02", 4);
        drv_put_le(h + 4, 45, 2);
        drv_put_le(h + 6, extra ? 45 : 20, 2);
        drv_put_le(h + 14, 0x21, 2);
        drv_put_le(h + 16, m->crc, 4);
        drv_put_le(h + 20, big ? 0xFFFFFFFFu : m->bytes, 4);
        drv_put_le(h + 24, big ? 0xFFFFFFFFu : m->bytes, 4);
        drv_put_le(h + 28, nlen, 2);
        drv_put_le(h + 30, extra ? extra + 4 : 0, 2);
        drv_put_le(h + 42, far ? 0xFFFFFFFFu : m->offset, 4);
        fwrite(h, 1, 46, f);
        fwrite(m->name, 1, nlen, f);
        if (extra) {
            int used = 4;
            drv_put_le(h, 1, 2);
            drv_put_le(h + 2, (uint64_t)extra, 2);
            if (big) {
                drv_put_le(h + used, m->bytes, 8);
                drv_put_le(h + used + 8, m->bytes, 8);
                used += 16;
            }
            if (far)
                drv_put_le(h + used, m->offset, 8);
            fwrite(h, 1, (size_t)extra + 4, f);
        }
        cd_size += 46 + nlen + (extra ? (uint64_t)extra + 4 : 0);
    }
    if (cd_at >= 0xFFFFFFFFu || cd_size >= 0xFFFFFFFFu || count >= 0xFFFF) {
        memset(h, 0, 76);
        memcpy(h, "PK\x06\x06", 4);
        drv_put_le(h + 4, 44, 8);
        drv_put_le(h + 12, 45, 2);
        drv_put_le(h + 14, 45, 2);
        drv_put_le(h + 24, (uint64_t)count, 8);
        drv_put_le(h + 32, (uint64_t)count, 8);
        drv_put_le(h + 40, cd_size, 8);
        drv_put_le(h + 48, cd_at, 8);
        memcpy(h + 56, "PK\x06\x07", 4);
        drv_put_le(h + 64, cd_at + cd_size, 8);
        drv_put_le(h + 72, 1, 4);
        fwrite(h, 1, 76, f);
    }
    memset(h, 0, 22);
    memcpy(h, "PK\x05\x06", 4);
    drv_put_le(h + 8, count >= 0xFFFF ? 0xFFFF : (uint64_t)count, 2);
    drv_put_le(h + 10, count >= 0xFFFF ? 0xFFFF : (uint64_t)count, 2);
    drv_put_le(h + 12, cd_size >= 0xFFFFFFFFu ? 0xFFFFFFFFu : cd_size, 4);
    drv_put_le(h + 16, cd_at >= 0xFFFFFFFFu ? 0xFFFFFFFFu : cd_at, 4);
    fwrite(h, 1, 22, f);
    free(buf);
    drv_close_output(f, tmp, path);
}

/* The width (32 or 64) the k-th index array of L is written at. */
static int drv_npz_bits(const drv_npz_layout *L, int k)
{
    return L->positions[k] ? drv_pos_width : drv_crd_width;
}

/* Writes `x` (an instance of L's format) to `path` in spf's generic
 * layout. */
static void drv_write_generic(const drv_inst *x, const drv_npz_layout *L, const char *path)
{
    const int ns = drv_npz_count(L->symbols), na = drv_npz_count(L->arrays);
    drv_npz_out *m = drv_alloc(ns + na + 2, sizeof *m);
    int64_t *sym = drv_alloc(ns > 0 ? ns : 1, sizeof *sym);
    int k, used = 0;
    drv_npz_text(&m[used++], "spf_format", L->format);
    for (k = 0; k < ns; k++) {
        sym[k] = drv_symbol(x, path, L->symbols[k]);
        drv_npz_ints(&m[used++], L->symbols[k], 0, NULL, &sym[k], 1, 64);
    }
    for (k = 0; k < na; k++) {
        const drv_array *a = drv_array_named(x, path, L->arrays[k]);
        drv_npz_ints(&m[used++], L->arrays[k], 1, &a->len, a->i, a->len, drv_npz_bits(L, k));
    }
    {
        const drv_array *a = drv_array_named(x, path, L->values);
        drv_npz_reals(&m[used++], L->values, 1, &a->len, a->r, a->len);
    }
    drv_zip_write(path, m, used);
    free(sym);
    free(m);
}

/* Writes `x` (an instance of L's format) to `path` in L's layout: scipy's
 * when L has one and the instance can take it, else the generic one. */
static DRV_UNUSED void drv_write_npz(const drv_inst *x, const drv_npz_layout *L, const char *path)
{
    const int nk = L->scipy != NULL ? drv_npz_count(L->keys) : 0;
    const int nd = L->scipy != NULL ? drv_npz_count(L->dense) : 0;
    int64_t dims[8], shape[3], *stacked = NULL, k;
    double *by_col = NULL;
    drv_npz_out m[16];
    int used = 0, narrow = 1;
    const drv_array *values;
    if (L->scipy == NULL) {
        drv_write_generic(x, L, path);
        return;
    }
    for (k = 0; k < nd; k++)
        dims[k] = drv_symbol(x, path, L->dense[k]);
    if (L->block_r > 0 && (dims[0] % L->block_r != 0 || dims[1] % L->block_c != 0)) {
        fprintf(stderr,
                "%s: note: written in spf's generic layout: scipy's bsr needs the extents to be "
                "multiples of the %lld x %lld block, and this matrix is %lld x %lld\n",
                path, (long long)L->block_r, (long long)L->block_c, (long long)dims[0],
                (long long)dims[1]);
        drv_write_generic(x, L, path);
        return;
    }
    if (L->stacked != NULL) {
        const int64_t n = drv_array_named(x, path, L->arrays[0])->len;
        stacked = drv_alloc(n * nk > 0 ? n * nk : 1, sizeof *stacked);
        for (k = 0; k < nk; k++) {
            const drv_array *a = drv_array_named(x, path, L->arrays[k]);
            memcpy(stacked + k * n, a->i, (size_t)n * sizeof *stacked);
            narrow &= drv_npz_bits(L, (int)k) == 32;
        }
        shape[0] = nk;
        shape[1] = n;
        drv_npz_ints(&m[used++], L->stacked, 2, shape, stacked, n * nk, narrow ? 32 : 64);
    } else {
        for (k = 0; k < nk; k++) {
            const drv_array *a = drv_array_named(x, path, L->arrays[k]);
            drv_npz_ints(&m[used++], L->keys[k], 1, &a->len, a->i, a->len, drv_npz_bits(L, (int)k));
        }
    }
    values = drv_array_named(x, path, L->values);
    if (L->dia) {
        const drv_array *off = drv_array_named(x, path, L->arrays[0]);
        const int64_t ndiag = off->len, cols = dims[1], rows = dims[0];
        int64_t j;
        by_col = drv_alloc(ndiag * cols > 0 ? ndiag * cols : 1, sizeof *by_col);
        for (k = 0; k < ndiag; k++)
            for (j = 0; j < cols; j++) {
                const int64_t i = j - off->i[k];
                by_col[k * cols + j] = i >= 0 && i < rows && i * ndiag + k < values->len
                                           ? values->r[i * ndiag + k]
                                           : 0.0;
            }
        shape[0] = ndiag;
        shape[1] = cols;
        drv_npz_reals(&m[used++], "data", 2, shape, by_col, ndiag * cols);
    } else if (L->block_r > 0) {
        shape[0] = values->len / (L->block_r * L->block_c);
        shape[1] = L->block_r;
        shape[2] = L->block_c;
        drv_npz_reals(&m[used++], "data", 3, shape, values->r, values->len);
    } else {
        drv_npz_reals(&m[used++], "data", 1, &values->len, values->r, values->len);
    }
    shape[0] = nd;
    drv_npz_ints(&m[used++], "shape", 1, shape, dims, nd, 64);
    drv_npz_text(&m[used++], "format", L->scipy);
    drv_npz_flag(&m[used++], "_is_array", 1);
    drv_zip_write(path, m, used);
    free(stacked);
    free(by_col);
}
