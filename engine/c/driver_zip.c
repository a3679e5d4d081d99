/* ---------------------------------------------------------------------------
 * Zip archives and gzip streams in the programs spf build makes, under the
 * .npz reader and writer (driver_npz.c): CRC-32, little-endian fields,
 * gzip decompressed whole (every member, as gunzip reads a concatenation),
 * and a zip archive's members looked up by name in its central directory
 * (zip64 too) and read stored or deflated, each checked against its CRC.
 * Deflate needs zlib: SPF_HAVE_ZLIB, which spf build sets when the
 * compiler finds it; without it a deflated member or a gzip file is
 * refused, saying so.
 * ------------------------------------------------------------------------- */

#ifdef SPF_HAVE_ZLIB
#include <zlib.h>
#endif

/* ----- CRC-32 (zip's) ----------------------------------------------------- */

static uint32_t drv_crc_update(uint32_t crc, const unsigned char *p, size_t n)
{
#ifdef SPF_HAVE_ZLIB
    while (n > 0) {
        const uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = (uint32_t)crc32(crc, p, step);
        p += step;
        n -= step;
    }
    return crc;
#else
    static uint32_t table[256];
    static int ready = 0;
    if (!ready) {
        uint32_t k, b, c;
        for (k = 0; k < 256; k++) {
            for (c = k, b = 0; b < 8; b++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[k] = c;
        }
        ready = 1;
    }
    crc = ~crc;
    while (n-- > 0)
        crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
#endif
}

/* ----- little-endian fields ----------------------------------------------- */

static uint64_t drv_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    int k;
    for (k = bytes - 1; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static void drv_put_le(unsigned char *p, uint64_t v, int bytes)
{
    int k;
    for (k = 0; k < bytes; k++, v >>= 8)
        p[k] = (unsigned char)(v & 0xFF);
}

/* ----- gzip --------------------------------------------------------------- */

/* The decompressed bytes of gzip `data` (every member, as gunzip reads a
 * concatenation), NUL-terminated; frees `data`. */
static DRV_UNUSED char *drv_gunzip(const char *path, char *data, size_t len, size_t *out_len)
{
#ifdef SPF_HAVE_ZLIB
    z_stream z;
    size_t cap = len < ((size_t)1 << 40) / 4 ? 4 * len + 1024 : len, n = 0;
    char *out = drv_alloc((int64_t)cap + 1, 1);
    int rc = Z_OK;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        drv_die("%s: cannot start zlib", path);
    z.next_in = (unsigned char *)data;
    while (z.next_in < (unsigned char *)data + len) {
        size_t left_in = (size_t)((unsigned char *)data + len - z.next_in);
        if (cap - n < 65536) {
            cap *= 2;
            out = drv_grow(out, (int64_t)cap + 1, 1);
        }
        z.avail_in = left_in > (1u << 30) ? (1u << 30) : (uInt)left_in;
        z.next_out = (unsigned char *)out + n;
        z.avail_out = (cap - n) > (1u << 30) ? (1u << 30) : (uInt)(cap - n);
        rc = inflate(&z, Z_NO_FLUSH);
        n = (size_t)((char *)z.next_out - out);
        if (rc == Z_STREAM_END) {
            /* another member may follow */
            if (inflateReset(&z) != Z_OK)
                break;
            continue;
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            drv_die("%s: a damaged gzip stream (%s)", path, z.msg != NULL ? z.msg : "zlib error");
        if (rc == Z_BUF_ERROR && z.avail_in == 0)
            break;
    }
    if (rc != Z_STREAM_END)
        drv_die("%s: the gzip stream ends early (a truncated file)", path);
    inflateEnd(&z);
    free(data);
    out[n] = '\0';
    *out_len = n;
    return out;
#else
    (void)data;
    (void)len;
    (void)out_len;
    drv_die("%s: gzip-compressed, and this program was built without zlib (install zlib's "
            "headers, e.g. zlib1g-dev, and rebuild; or `gunzip -k %s`)",
            path, path);
#endif
}

/* ----- reading archives --------------------------------------------------- */

typedef struct {
    const char *path;
    const unsigned char *bytes;
    size_t len;
    /* the central directory */
    const unsigned char *cd;
    uint64_t entries, cd_size;
} drv_zip;

static void drv_zip_damaged(const drv_zip *z, const char *fmt, ...) DRV_NORETURN DRV_PRINTF(2, 3);
static void drv_zip_damaged(const drv_zip *z, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    drv_die("%s: not a readable .npz archive: %s", z->path, what);
}

static void drv_zip_open(drv_zip *z, const char *path, const char *bytes, size_t len)
{
    const unsigned char *b = (const unsigned char *)bytes, *eocd = NULL;
    size_t k;
    uint64_t cd_at;
    z->path = path;
    z->bytes = b;
    z->len = len;
    for (k = len >= 22 ? len - 22 + 1 : 0; k-- > 0 && len - k <= 22 + 65535;)
        if (memcmp(b + k, "PK\x05\x06", 4) == 0) {
            eocd = b + k;
            break;
        }
    if (eocd == NULL)
        drv_zip_damaged(z, "no end of central directory (a truncated file?)");
    z->entries = drv_le(eocd + 10, 2);
    z->cd_size = drv_le(eocd + 12, 4);
    cd_at = drv_le(eocd + 16, 4);
    if (z->entries == 0xFFFF || z->cd_size == 0xFFFFFFFFu || cd_at == 0xFFFFFFFFu) {
        const unsigned char *loc = eocd - 20, *e64;
        uint64_t at;
        if (eocd < b + 20 || memcmp(loc, "PK\x06\x07", 4) != 0)
            drv_zip_damaged(z, "a zip64 archive without its locator");
        at = drv_le(loc + 8, 8);
        if (at > len || len - at < 56 || memcmp(b + at, "PK\x06\x06", 4) != 0)
            drv_zip_damaged(z, "a damaged zip64 end of central directory");
        e64 = b + at;
        z->entries = drv_le(e64 + 32, 8);
        z->cd_size = drv_le(e64 + 40, 8);
        cd_at = drv_le(e64 + 48, 8);
    }
    if (cd_at > len || z->cd_size > len - cd_at)
        drv_zip_damaged(z, "the central directory lies outside the file (a truncated file?)");
    z->cd = b + cd_at;
}

/* Looks member `name` up; 0 when the archive has none. */
static int drv_zip_find(const drv_zip *z, const char *name, int *method, uint32_t *crc,
                        uint64_t *csize, uint64_t *usize, uint64_t *local)
{
    const unsigned char *p = z->cd, *end = z->cd + z->cd_size;
    size_t nlen = strlen(name);
    uint64_t e;
    for (e = 0; e < z->entries; e++) {
        uint64_t n, x, c;
        if (end - p < 46 || memcmp(p, "PK\x01\x02", 4) != 0)
            drv_zip_damaged(z, "a damaged central directory");
        n = drv_le(p + 28, 2);
        x = drv_le(p + 30, 2);
        c = drv_le(p + 32, 2);
        if ((uint64_t)(end - p) < 46 + n + x + c)
            drv_zip_damaged(z, "a damaged central directory");
        if (n == nlen && memcmp(p + 46, name, nlen) == 0) {
            const unsigned char *q = p + 46 + n, *qe = q + x;
            *method = (int)drv_le(p + 10, 2);
            *crc = (uint32_t)drv_le(p + 16, 4);
            *csize = drv_le(p + 20, 4);
            *usize = drv_le(p + 24, 4);
            *local = drv_le(p + 42, 4);
            /* zip64: the fields saturated in the header, in this order */
            while (qe - q >= 4) {
                uint64_t id = drv_le(q, 2), sz = drv_le(q + 2, 2);
                const unsigned char *f = q + 4;
                if ((uint64_t)(qe - f) < sz)
                    break;
                if (id == 1) {
                    const unsigned char *fe = f + sz;
                    if (*usize == 0xFFFFFFFFu && fe - f >= 8)
                        *usize = drv_le(f, 8), f += 8;
                    if (*csize == 0xFFFFFFFFu && fe - f >= 8)
                        *csize = drv_le(f, 8), f += 8;
                    if (*local == 0xFFFFFFFFu && fe - f >= 8)
                        *local = drv_le(f, 8);
                }
                q += 4 + sz;
            }
            return 1;
        }
        p += 46 + n + x + c;
    }
    return 0;
}

/* The bytes of member `name` (inflated when deflated, `*owned` then set),
 * its CRC checked; NULL when the archive has none. */
static const unsigned char *drv_zip_member(const drv_zip *z, const char *name, uint64_t *len,
                                           unsigned char **owned)
{
    int method;
    uint32_t crc;
    uint64_t csize, usize, local, n, x;
    const unsigned char *data;
    unsigned char *out = NULL;
    *owned = NULL;
    if (!drv_zip_find(z, name, &method, &crc, &csize, &usize, &local))
        return NULL;
    if (local > z->len || z->len - local < 30 || memcmp(z->bytes + local, "PK\x03\x04", 4) != 0) {
        drv_zip_damaged(z, "member %s has a damaged local header", name);
    }
    n = drv_le(z->bytes + local + 26, 2);
    x = drv_le(z->bytes + local + 28, 2);
    if (z->len - local - 30 < n + x || z->len - local - 30 - n - x < csize) {
        drv_zip_damaged(z, "member %s is cut short (a truncated file?)", name);
    }
    data = z->bytes + local + 30 + n + x;
    if (method == 0) {
        if (csize != usize) {
            drv_zip_damaged(z, "stored member %s has two sizes", name);
        }
    } else if (method == 8) {
#ifdef SPF_HAVE_ZLIB
        z_stream s;
        int rc;
        uint64_t got = 0;
        out = drv_alloc((int64_t)usize > 0 ? (int64_t)usize : 1, 1);
        memset(&s, 0, sizeof s);
        if (inflateInit2(&s, -15) != Z_OK)
            drv_die("%s: cannot start zlib", z->path);
        s.next_in = (unsigned char *)data;
        do {
            uint64_t in_left = csize - (uint64_t)(s.next_in - data);
            s.avail_in = in_left > (1u << 30) ? (1u << 30) : (uInt)in_left;
            s.next_out = out + got;
            s.avail_out = usize - got > (1u << 30) ? (1u << 30) : (uInt)(usize - got);
            rc = inflate(&s, Z_NO_FLUSH);
            got = (uint64_t)(s.next_out - out);
        } while (rc == Z_OK && (s.avail_in > 0 || got < usize));
        inflateEnd(&s);
        if (rc != Z_STREAM_END || got != usize) {
            free(out);
            drv_zip_damaged(z, "member %s does not inflate to its size (damaged)", name);
        }
        data = out;
#else
        drv_die("%s: member %s is deflated (numpy's savez_compressed, scipy's save_npz), and this "
                "program was built without zlib (install zlib's headers, e.g. zlib1g-dev, and "
                "rebuild; or `spf convert F F %s -o in.json` for a JSON instance)",
                z->path, name, z->path);
#endif
    } else {
        drv_zip_damaged(z, "member %s is compressed with method %d (numpy writes stored "
                 "or deflated members)", name, method);
    }
    if (drv_crc_update(0, data, (size_t)usize) != crc) {
        free(out);
        drv_zip_damaged(z, "member %s fails its checksum (damaged)", name);
    }
    *owned = out;
    *len = usize;
    return data;
}
