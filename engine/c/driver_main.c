/* ----- main --------------------------------------------------------------- */

static void drv_usage(const char *problem)
{
    fprintf(stderr,
            "%s: %s\nusage: %s INPUT [-o OUT.json|OUT.npz] [--repeat N] [--unchecked]\n"
            "       [--allow-nonfinite]%s\n"
            "  INPUT: a Matrix Market file, a FROSTT file (either gzip-compressed or not),\n"
            "  an .npz archive or a JSON instance of %s (told by its content; `-`: standard\n"
            "  input)\n",
            drv_prog, problem, drv_prog, DRV_HAS_BASELINE ? " [--baseline-output B.json]" : "",
            drv_src_format);
    exit(2);
}

static int64_t drv_repeat_count(const char *text)
{
    drv_field f;
    int64_t n = 0;
    f.p = text;
    f.n = strlen(text);
    f.col = 0;
    if (drv_parse_i64(f, &n) != 0 || n < 1)
        drv_usage("--repeat needs a positive integer");
    return n;
}

/* The median of n sorted times. */
static double drv_median(const double *sorted, int64_t n)
{
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* An output the program would write JSON into under another kind's name
 * (`-o d.csc.npz`) is refused, naming what writes that kind; standard
 * output carries the program's timing line. */
static void drv_check_output_name(const char *name, const char *flag)
{
    static const char *const others[] = {".mtx", ".tns", ".gz"};
    size_t k;
    if (name == NULL)
        return;
    if (strcmp(name, "-") == 0)
        drv_die("%s -: standard output carries the program's timing line; name a .json or .npz file",
                flag);
    for (k = 0; k < sizeof others / sizeof others[0]; k++)
        if (drv_ends_with(name, others[k]))
            drv_die("%s %s: a program spf build makes writes JSON instances and .npz archives; "
                    "name it .json or .npz (`spf convert` turns one into %s: `spf convert F F "
                    "out.json -o %s`)",
                    flag, name, others[k], name);
}

/* Writes the destination instance as an .npz archive (by the name) or a
 * JSON instance. */
static void drv_write_output(const drv_inst *x, const char *path)
{
    if (drv_ends_with(path, ".npz"))
        drv_write_npz(x, &drv_dst_npz, path);
    else
        drv_write_json(x, path);
}

int main(int argc, char **argv)
{
    const char *input = NULL, *output = NULL, *baseline_output = NULL;
    char *text;
    size_t text_len;
    enum drv_kind kind;
    /* The entries of a coordinate file (or of a scipy archive read as its
       entries), when the input is one. */
    drv_coords c;
    int from_entries = 0;
    int64_t repeat = 1, r;
    int k, unchecked = 0;
    drv_inst src, dst;
    /* The entries of a coordinate file as read, when the program converts
       them to the source first: what --verify compares the result with. */
    drv_inst read;
    int have_read = 0;
#if DRV_HAS_BASELINE
    drv_inst bdst;
    double *btimes;
#endif
    double *times;
    static char ctx[512];
#ifdef __GLIBC__
    /* The steady state of a long-running process, set from the start: the
     * repeated runs reuse memory instead of mapping and faulting in fresh
     * pages each time, as in-process callers (and the benchmark's
     * baselines) do. glibc maps every block above its mmap threshold
     * (32 MiB at most) afresh and unmaps it on free, so a conversion whose
     * temporaries exceed it (a permutation's keys and sort buffers: 89 MB
     * for 1.6M COO3D entries) would pay their page faults on every run
     * (COO3D -> MCOO3 109 ms instead of 70 on freebase-music at 0.05): blocks come from
     * the heap (no mmap), and the heap is never trimmed. */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
    if (argc > 0 && argv[0] != NULL)
        drv_prog = argv[0];
    for (k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (++k == argc)
                drv_usage("-o needs a file name");
            output = argv[k];
        } else if (strncmp(a, "--output=", 9) == 0) {
            output = a + 9;
        } else if (strcmp(a, "--repeat") == 0) {
            if (++k == argc)
                drv_usage("--repeat needs a number");
            repeat = drv_repeat_count(argv[k]);
        } else if (strncmp(a, "--repeat=", 9) == 0) {
            repeat = drv_repeat_count(a + 9);
        } else if (DRV_HAS_BASELINE && strcmp(a, "--baseline-output") == 0) {
            if (++k == argc)
                drv_usage("--baseline-output needs a file name");
            baseline_output = argv[k];
        } else if (DRV_HAS_BASELINE && strncmp(a, "--baseline-output=", 18) == 0) {
            baseline_output = a + 18;
        } else if (strcmp(a, "--unchecked") == 0) {
            unchecked = 1;
        } else if (strcmp(a, "--allow-nonfinite") == 0) {
            drv_allow_nonfinite = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("usage: %s INPUT [-o OUT.json|OUT.npz] [--repeat N] [--unchecked]\n"
                   "       [--allow-nonfinite]%s\n"
                   "Converts INPUT (a Matrix Market or FROSTT file, either gzip-compressed or\n"
                   "not, an .npz archive in spf convert's layouts or a JSON instance, told by\n"
                   "its content; `-`: standard input) of %s to %s,\n"
                   "timing N runs of the conversion, and prints one JSON line; -o writes the\n"
                   "result as an .npz archive (by the name) or a JSON instance.\n"
                   "A JSON or .npz instance is checked against every rule of the source format\n"
                   "and its storage (as spf convert checks it) unless --unchecked is given;\n"
                   "its names, lengths, ranges and monotonicity are checked always.\n"
                   "--allow-nonfinite reads the values nan, inf, -inf and infinity (any case)\n"
                   "of a Matrix Market or FROSTT INPUT, as spf convert --allow-nonfinite does;\n"
                   "without it they are refused. JSON cannot carry them: a result holding one\n"
                   "is refused rather than written to OUT.json (OUT.npz keeps them).\n",
                   drv_prog, DRV_HAS_BASELINE ? " [--baseline-output B.json]" : "",
                   drv_src_format, drv_dst_format);
            if (DRV_VERIFY)
                printf("The result is checked against the input (spf build --verify): a\n"
                       "difference is reported and exits with status 3, writing nothing.\n");
            if (DRV_HAS_BASELINE)
                printf("Each run also times the linked baseline (in turn, the order alternating);\n"
                       "--baseline-output writes its result as -o writes the conversion's.\n");
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            snprintf(ctx, sizeof ctx, "unknown option `%s`", a);
            drv_usage(ctx);
        } else if (input == NULL) {
            input = a;
        } else {
            drv_usage("only one INPUT is accepted");
        }
    }
    if (input == NULL)
        drv_usage("missing INPUT");
    drv_check_output_name(output, "-o");
    drv_check_output_name(baseline_output, "--baseline-output");

    text = drv_slurp(input, &text_len);
    if (drv_is_gzip(text, text_len))
        text = drv_gunzip(input, text, text_len, &text_len);
    kind = drv_kind_of(text, text_len);
    if (kind == DRV_NPZ) {
        /* scipy's coo, or a csr, csc or bsr out of order: its entries */
        from_entries = drv_read_npz(input, text, text_len, &drv_src_npz, DRV_COORD_ORDER > 0, &src, &c);
        free(text);
    } else if (kind != DRV_JSON) {
#if DRV_COORD_ORDER > 0
        if (kind == DRV_MTX)
            drv_read_mtx(input, text, text_len, &c);
        else
            drv_read_tns(input, text, text_len, &c);
        from_entries = 1;
#else
        drv_die("%s: %s", input, drv_no_coordinates);
#endif
    }
    if (from_entries) {
#if DRV_COORD_ORDER > 0
        if (c.order != DRV_COORD_ORDER) {
            const char *formats = drv_formats_of_order(c.order);
            if (formats == NULL)
                drv_die("%s: the input has %d dimensions but %s has %d; no built-in format has "
                        "%d dimensions",
                        input, c.order, drv_src_format, DRV_COORD_ORDER, c.order);
            drv_die("%s: the input has %d dimensions but %s has %d; %s", input, c.order,
                    drv_src_format, DRV_COORD_ORDER, formats);
        }
#if DRV_HAS_PRE
        {
            drv_inst coo;
            double seconds;
            drv_coo_instance(&c, &coo, drv_coo_format, drv_coo_dims, drv_coo_index,
                             drv_coo_count, drv_coo_values);
            /* An entry the source cannot store, refused as `spf convert`
               refuses it: the conversion to the source would drop it or
               write outside its arrays. */
            drv_pre_check_representable(&coo, input);
            snprintf(ctx, sizeof ctx, "%s: internal error: converting %s to %s", input,
                     drv_coo_format, drv_src_format);
            drv_to_source(&coo, &src, &seconds, ctx);
            if (DRV_VERIFY) {
                read = coo;
                have_read = 1;
            } else {
                drv_inst_free(&coo);
            }
            drv_check_source(&src, ctx);
        }
#else
        drv_coo_instance(&c, &src, drv_coo_format, drv_coo_dims, drv_coo_index, drv_coo_count,
                         drv_coo_values);
        /* the reader checked the coordinates against the extents; the
           source's own ranges too, as SPF_INPUT_VALIDATED states */
        drv_check_source(&src, input);
#endif
#else
        drv_die("%s: %s", input, drv_no_coordinates);
#endif
    } else {
        if (kind == DRV_JSON)
            drv_read_json(input, text, text_len, &src);
        drv_check_source(&src, input);
        if (!unchecked)
            drv_check_rules(&src, input);
    }
    /* Checked or not: an entry the destination cannot store would be
       written outside its arrays. */
    drv_check_representable(&src, input);
    {
        /* The index width: 32 when the instance fits it (auto), or as built. */
        char what[256];
        int64_t v = 0;
        const int fits = (DRV_WIDTH == 64 && src.width != 32) ||
                         drv_fits_32(&src, drv_src_values, what, sizeof what, &v);
        if (src.width == 32 && !fits)
            drv_die("%s: the instance records 32-bit indices, but %s is %lld: more than 32-bit "
                    "indices hold (2147483647)",
                    input, what, (long long)v);
        if (DRV_WIDTH == 32 && !fits)
            drv_die("%s: %s is %lld: more than 32-bit indices hold (2147483647); build with "
                    "--index-width 64 or auto",
                    input, what, (long long)v);
        drv_width = fits && DRV_WIDTH != 64 ? 32 : 64;
        drv_pos_width = DRV_POS_WIDTH != 0 ? DRV_POS_WIDTH : drv_width;
        drv_crd_width = DRV_CRD_WIDTH != 0 ? DRV_CRD_WIDTH : drv_width;
    }

    times = drv_alloc(repeat, sizeof *times);
#if DRV_HAS_BASELINE
    /* In turn, on the same input and memory; which goes first alternates,
     * and each side's previous output is freed before it runs again. */
    btimes = drv_alloc(repeat, sizeof *btimes);
    for (r = 0; r < repeat; r++) {
        int turn;
        for (turn = 0; turn < 2; turn++) {
            if ((turn ^ (int)(r % 2)) == 0) {
                if (r > 0)
                    drv_inst_free(&dst);
                drv_convert(&src, &dst, &times[r], input, 0);
            } else {
                if (r > 0)
                    drv_inst_free(&bdst);
                drv_convert(&src, &bdst, &btimes[r], input, 1);
            }
        }
    }
#else
    for (r = 0; r < repeat; r++) {
        if (r > 0)
            drv_inst_free(&dst);
        drv_convert(&src, &dst, &times[r], input);
    }
#endif
#if DRV_VERIFY
    /* Before anything is written: a wrong result never reaches a file. */
    drv_verify(&src, &dst, have_read ? &read : NULL, input);
#endif
    if (have_read)
        drv_inst_free(&read);
    if (output != NULL)
        drv_write_output(&dst, output);
#if DRV_HAS_BASELINE
    if (baseline_output != NULL)
        drv_write_output(&bdst, baseline_output);
#else
    (void)baseline_output;
#endif

    qsort(times, (size_t)repeat, sizeof *times, drv_cmp_double);
    fputs("{\"src\": ", stdout);
    drv_put_string(stdout, drv_src_format);
    fputs(", \"dst\": ", stdout);
    drv_put_string(stdout, drv_dst_format);
    printf(", \"nnz\": %lld, \"runs\": %lld, \"median_seconds\": %.9g, \"min_seconds\": %.9g, "
           "\"max_seconds\": %.9g, \"input_bytes\": %lld, \"output_bytes\": %lld",
           (long long)drv_nonzeros(&src, drv_src_values), (long long)repeat,
           drv_median(times, repeat), times[0], times[repeat - 1], (long long)drv_bytes(&src, drv_src_positions),
           (long long)drv_bytes(&dst, drv_dst_positions));
    if (drv_pos_width == drv_crd_width)
        printf(", \"index_width\": %d", drv_width);
    else
        printf(", \"index_width\": {\"positions\": %d, \"coordinates\": %d}", drv_pos_width,
               drv_crd_width);
    if (DRV_VERIFY)
        fputs(", \"verified\": true", stdout);
#if DRV_HAS_BASELINE
    qsort(btimes, (size_t)repeat, sizeof *btimes, drv_cmp_double);
    printf(", \"baseline_median_seconds\": %.9g, \"baseline_min_seconds\": %.9g, "
           "\"baseline_max_seconds\": %.9g, \"baseline_output_bytes\": %lld",
           drv_median(btimes, repeat), btimes[0], btimes[repeat - 1],
           (long long)drv_bytes(&bdst, drv_dst_positions));
    free(btimes);
    drv_inst_free(&bdst);
#endif
    fputs("}\n", stdout);
    if (fflush(stdout) != 0)
        drv_die("%s: cannot write to standard output", drv_prog);
    free(times);
    drv_inst_free(&src);
    drv_inst_free(&dst);
    return 0;
}
