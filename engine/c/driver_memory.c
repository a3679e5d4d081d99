/* ---------------------------------------------------------------------------
 * The memory a program may fill (spf's codegen::available_memory, in C): a
 * large allocation is compared first with the least of the system's
 * available memory (MemAvailable and SwapFree of /proc/meminfo), the memory
 * cgroup's limit less its usage (v2 memory.max, v1 memory.limit_in_bytes),
 * the address-space limit (RLIMIT_AS, from /proc/self/limits) less the
 * process's size (VmSize) and SPF_MAX_MEMORY, less a margin (a sixteenth,
 * at least 64 MiB). Linux overcommits: without this, an allocation beyond
 * the machine succeeds and the process is killed when it writes the pages.
 *
 * The limit is read once, when the program's allocations first reach
 * DRV_CHECKED_BYTES; every allocation is then taken out of it, written or
 * not (what is freed is not given back: a program converts once), but for
 * a zeroed block beyond it (drv_admit_as). Where
 * nothing can be read, nothing is refused in advance.
 * ------------------------------------------------------------------------- */

#define DRV_CHECKED_BYTES ((uint64_t)32 << 20)

/* The number after `key` on a line of the file at `path` (in kB when
 * `kib`), or 0 with *found left as it was. */
static uint64_t drv_field_of(const char *path, const char *key, int kib, int *found)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t n = strlen(key);
    uint64_t v = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, key, n) == 0) {
            const char *p = line + n;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p >= '0' && *p <= '9') {
                v = strtoull(p, NULL, 10);
                if (kib)
                    v = v > UINT64_MAX / 1024 ? UINT64_MAX : v * 1024;
                *found = 1;
            }
            break;
        }
    }
    fclose(f);
    return v;
}

/* The first number the file at `path` holds; 0 when it holds none (`max`). */
static int drv_number_in(const char *path, uint64_t *v)
{
    FILE *f = fopen(path, "r");
    char text[64];
    int ok = 0;
    if (f == NULL)
        return 0;
    if (fgets(text, sizeof text, f) != NULL && text[0] >= '0' && text[0] <= '9') {
        *v = strtoull(text, NULL, 10);
        ok = 1;
    }
    fclose(f);
    return ok;
}

/* Lowers *least to limit - usage when both files hold numbers. */
static void drv_consider_cgroup(const char *limit_path, const char *usage_path, uint64_t *least, int *found)
{
    uint64_t limit, usage;
    if (!drv_number_in(limit_path, &limit) || !drv_number_in(usage_path, &usage))
        return;
    if (limit >= ((uint64_t)1 << 60)) /* v1's unset limit */
        return;
    {
        const uint64_t left = limit > usage ? limit - usage : 0;
        if (!*found || left < *least)
            *least = left;
        *found = 1;
    }
}

/* Whether a comma-separated list of cgroup v1 controllers names `memory`. */
static int drv_lists_memory(const char *controllers)
{
    const char *p = controllers;
    while (*p != '\0') {
        const size_t n = strcspn(p, ",");
        if (n == 6 && strncmp(p, "memory", 6) == 0)
            return 1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* The memory cgroup's limit less its usage, at the process's group and at
 * the mount's root (a container's view). */
static void drv_cgroup_available(uint64_t *least, int *found)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[1024], a[1200], b[1200];
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        char *controllers = strchr(line, ':'), *path;
        int k;
        if (controllers == NULL)
            continue;
        controllers++;
        path = strchr(controllers, ':');
        if (path == NULL)
            continue;
        *path++ = '\0';
        path[strcspn(path, "\n")] = '\0';
        for (k = 0; k < 2; k++) {
            const char *dir = k == 0 ? path : "";
            if (controllers[0] == '\0') {
                snprintf(a, sizeof a, "/sys/fs/cgroup%s/memory.max", dir);
                snprintf(b, sizeof b, "/sys/fs/cgroup%s/memory.current", dir);
                drv_consider_cgroup(a, b, least, found);
            } else if (drv_lists_memory(controllers)) {
                snprintf(a, sizeof a, "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", dir);
                snprintf(b, sizeof b, "/sys/fs/cgroup/memory%s/memory.usage_in_bytes", dir);
                drv_consider_cgroup(a, b, least, found);
            }
        }
    }
    fclose(f);
}

/* A size with an optional suffix K, M, G or T (powers of 1024); 0 when the
 * text is not one. */
static int drv_parse_size(const char *text, uint64_t *v)
{
    char *end;
    unsigned long long n;
    int shift = 0;
    while (*text == ' ')
        text++;
    if (*text < '0' || *text > '9')
        return 0;
    n = strtoull(text, &end, 10);
    while (*end == ' ')
        end++;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
        end += strlen(end);
    if (*end != '\0' || n > (UINT64_MAX >> shift))
        return 0;
    *v = (uint64_t)n << shift;
    return 1;
}

/* The bytes the process can still fill, less the margin; 0 in *found when
 * no limit can be read. */
static uint64_t drv_available_bytes(int *found)
{
    uint64_t least = 0, v;
    int got = 0;
    const char *user = getenv("SPF_MAX_MEMORY");
    *found = 0;
    v = drv_field_of("/proc/meminfo", "MemAvailable:", 1, &got);
    if (got) {
        int swap = 0;
        const uint64_t s = drv_field_of("/proc/meminfo", "SwapFree:", 1, &swap);
        least = v + s < v ? UINT64_MAX : v + s;
        *found = 1;
    }
    drv_cgroup_available(&least, found);
    got = 0;
    v = drv_field_of("/proc/self/limits", "Max address space", 0, &got);
    if (got) {
        int sized = 0;
        const uint64_t size = drv_field_of("/proc/self/status", "VmSize:", 1, &sized);
        const uint64_t left = v > size ? v - size : 0;
        if (!*found || left < least)
            least = left;
        *found = 1;
    }
    if (user != NULL && drv_parse_size(user, &v)) {
        if (!*found || v < least)
            least = v;
        *found = 1;
    }
    {
        const uint64_t margin = least / 16 > ((uint64_t)64 << 20) ? least / 16 : ((uint64_t)64 << 20);
        return least > margin ? least - margin : 0;
    }
}

/* Bytes for a person, into `out`, as spf's codegen::allocation::gib: GiB to
 * two decimals from 1 GiB, MiB or KiB to one below, bytes below 1 KiB. */
static const char *drv_shown_bytes(uint64_t bytes, char *out, size_t cap)
{
    if (bytes >= ((uint64_t)1 << 30))
        snprintf(out, cap, "%.2f GiB", (double)bytes / (double)((uint64_t)1 << 30));
    else if (bytes >= ((uint64_t)1 << 20))
        snprintf(out, cap, "%.1f MiB", (double)bytes / (double)((uint64_t)1 << 20));
    else if (bytes >= ((uint64_t)1 << 10))
        snprintf(out, cap, "%.1f KiB", (double)bytes / (double)((uint64_t)1 << 10));
    else
        snprintf(out, cap, "%llu bytes", (unsigned long long)bytes);
    return out;
}

static uint64_t drv_memory_taken;
static uint64_t drv_memory_limit;
static int drv_memory_state; /* 0 unread, 1 limited, 2 unlimited */

/* Takes `bytes` (for n elements of `size` bytes) out of what the program
 * may fill, or stops with the sizes (drv_die: status 2, or the library's
 * jump). A zeroed block (`zeroed`) beyond it is allowed untaken, as spf's
 * own runtime blocks are: calloc's pages take memory only where they are
 * written, and the runtime writes its zeroed blocks (a counting sort's
 * counts over an extent) only where entries fall. */
static DRV_UNUSED void drv_admit_as(int64_t n, size_t size, uint64_t bytes, int zeroed)
{
    const uint64_t before = __atomic_fetch_add(&drv_memory_taken, bytes, __ATOMIC_RELAXED);
    const uint64_t total = before + bytes < before ? UINT64_MAX : before + bytes;
    int state;
    if (total < DRV_CHECKED_BYTES)
        return;
    state = __atomic_load_n(&drv_memory_state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        int found;
        const uint64_t limit = drv_available_bytes(&found);
        __atomic_store_n(&drv_memory_limit, limit, __ATOMIC_RELAXED);
        state = found ? 1 : 2;
        __atomic_store_n(&drv_memory_state, state, __ATOMIC_RELEASE);
    }
    if (state == 1 && total > __atomic_load_n(&drv_memory_limit, __ATOMIC_RELAXED)) {
        const uint64_t limit = __atomic_load_n(&drv_memory_limit, __ATOMIC_RELAXED);
        char need[32], left[32];
        __atomic_fetch_sub(&drv_memory_taken, bytes, __ATOMIC_RELAXED);
        if (zeroed)
            return;
        drv_die("%s: too large: an array of %lld elements of %zu bytes needs %s, %s available",
                drv_prog, (long long)n, size, drv_shown_bytes(bytes, need, sizeof need),
                drv_shown_bytes(limit > before ? limit - before : 0, left, sizeof left));
    }
}

static DRV_UNUSED void drv_admit(int64_t n, size_t size, uint64_t bytes)
{
    drv_admit_as(n, size, bytes, 0);
}

/* What growing the block at p to `bytes` adds (all of it when its size is
 * not known). */
static DRV_UNUSED uint64_t drv_growth(void *p, uint64_t bytes)
{
#ifdef __GLIBC__
    if (p != NULL) {
        const uint64_t had = (uint64_t)malloc_usable_size(p);
        return bytes > had ? bytes - had : 0;
    }
#else
    (void)p;
#endif
    return bytes;
}
