/* cmd_trace.c: `kwalk trace FILE [--db FILE] [--format text|yaml] [--gpu NAME]
 * [--shape NAME=V,...]`: a profiler's kernel trace (rocprofv3 --kernel-trace,
 * CSV or JSON; kw_trace.h) joined to the kernel instantiations of the index.
 *
 * Per instantiation: the dispatches, their total and median duration, the
 * launch configurations seen (grid in workgroups = Grid_Size / Workgroup_Size,
 * rounded up; workgroup size), and the bytes moved per dispatch with the
 * achieved bandwidth against the arch's peak, when the sidecar has IR facts
 * (kernels[].archs.<arch>.ir.work_per_thread.bytes_read / bytes_written,
 * evaluated with the dispatch's blockDim / gridDim and --shape); without them
 * the bytes are "not known (no IR facts)", never guessed.
 *
 * Names the index does not know are listed apart; a name that matches several
 * instantiations (a base name from --truncate-kernels, a name cut short) is
 * reported as ambiguous with its candidates, and its dispatches are counted
 * for none of them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kw_annot.h"
#include "kw_buf.h"
#include "kw_cli.h"
#include "kw_expr.h"
#include "kw_hw.h"
#include "kw_index.h"
#include "kw_reflect.h"
#include "kw_symmap.h"
#include "kw_trace.h"

static const char kw_trace_usage[] =
    "usage: kwalk trace FILE [--db FILE] [--format text|yaml] [--gpu NAME] [--shape N=V,...]\n\n"
    "Join a profiler's kernel trace to the kernel instantiations of the index:\n"
    "per instantiation, dispatches, total and median duration, launch\n"
    "configurations (grid in workgroups x workgroup size), bytes moved and\n"
    "achieved bandwidth vs. the GPU's peak (from IR facts, when the sidecars\n"
    "have them).\n\n"
    "FILE: a rocprofv3 kernel trace, CSV (rocprofv3 --kernel-trace, the\n"
    "*_kernel_trace.csv file) or JSON (--output-format json). Kernel names may be\n"
    "mangled (--mangled-kernels; best), demangled (the default), truncated\n"
    "(--truncate-kernels) or cut short; a name matching several instantiations\n"
    "is reported as ambiguous.\n\n"
    "  --db FILE       the database written by 'kwalk index' (default: " KW_INDEX_DEFAULT_PATH ")\n"
    "  --format F      text (default) or yaml\n"
    "  --gpu NAME      the GPU the trace ran on, for peaks (MI300X, MI325X, MI355X, ...;\n"
    "                  default: the arch's default product, annotations/hw/amdgpu-peaks.txt)\n"
    "  --shape N=V,... values for names in IR expressions the trace cannot give\n";

/* One launch configuration seen. */
typedef struct kw_tcfg {
    bool known;
    long long grid_wg[3]; /* workgroups per dimension (rounded up) */
    long long block[3];
    bool partial;         /* a grid size not a multiple of the workgroup size */
    KW_ARRAY(long long) dur;
    long long total;
    const char *arch;     /* the dispatches' arch when the trace says (all the same), else NULL */
    bool mixed_arch;
} kw_tcfg;

/* A row of the report: one instantiation, or one ambiguous / unknown name. */
typedef struct kw_trow {
    const kw_tkernel *k;         /* NULL: ambiguous or not in the index */
    const char *trace_name;      /* for those: the name as the trace gives it */
    kw_tmatch match;
    KW_ARRAY(const char *) names; /* the trace names that joined to k */
    KW_ARRAY(long long) dur;
    long long total;
    KW_ARRAY(kw_tcfg) cfgs;
} kw_trow;

typedef struct kw_tctx {
    kw_arena arena;
    const char *db;
    const char *gpu;
    kw_shape shape;
    kw_trace trace;
    kw_index ix;
    kw_annot annot;
    kw_gpus gpus;
    kw_tjoin join;
    KW_ARRAY(kw_trow) rows;
    kw_symmap row_of_kernel; /* symbol -> row */
    kw_symmap row_of_name;   /* trace name -> row, for ambiguous / unknown names */
    kw_symmap match_of_name; /* trace name -> index into matches */
    KW_ARRAY(kw_tmatch) matches;
} kw_tctx;

static int kw_oom(void) {
    return kw_cli_failf("out of memory");
}

static int kw_cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Median of sorted values: the middle one, or the mean of the two middle ones. */
static double kw_median(const long long *v, size_t n) {
    if (!n)
        return 0;
    return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

static kw_trow *kw_row_for(kw_tctx *c, const char *name, const kw_tmatch *m) {
    size_t *at;
    if (m->n == 1) {
        const kw_tkernel *k = &c->join.kernels.v[m->cand[0]];
        if ((at = kw_symmap_get(&c->row_of_kernel, k->symbol)))
            return &c->rows.v[*at];
        kw_trow *r = KW_PUSH(&c->arena, c->rows);
        if (!r || kw_symmap_put(&c->row_of_kernel, k->symbol, c->rows.n - 1))
            return NULL;
        r->k = k;
        r->match = *m;
        return r;
    }
    if ((at = kw_symmap_get(&c->row_of_name, name)))
        return &c->rows.v[*at];
    kw_trow *r = KW_PUSH(&c->arena, c->rows);
    if (!r || kw_symmap_put(&c->row_of_name, name, c->rows.n - 1))
        return NULL;
    r->trace_name = name;
    r->match = *m;
    return r;
}

static bool kw_add_name(kw_tctx *c, kw_trow *r, const char *name) {
    for (size_t i = 0; i < r->names.n; i++)
        if (!strcmp(r->names.v[i], name))
            return true;
    const char **s = KW_PUSH(&c->arena, r->names);
    if (!s)
        return false;
    *s = name;
    return true;
}

static bool kw_add_dispatch(kw_tctx *c, kw_trow *r, const kw_dispatch *d) {
    long long dur = d->end_ns - d->start_ns;
    long long *p = KW_PUSH(&c->arena, r->dur);
    if (!p)
        return false;
    *p = dur;
    r->total += dur;
    kw_tcfg key;
    memset(&key, 0, sizeof key);
    key.known = d->has_config;
    if (d->has_config)
        for (int i = 0; i < 3; i++) {
            key.block[i] = d->block[i];
            key.grid_wg[i] = d->block[i] ? (d->grid[i] + d->block[i] - 1) / d->block[i] : 0;
            key.partial |= d->block[i] && d->grid[i] % d->block[i];
        }
    kw_tcfg *cfg = NULL;
    for (size_t i = 0; i < r->cfgs.n && !cfg; i++) {
        kw_tcfg *x = &r->cfgs.v[i];
        if (x->known == key.known && !memcmp(x->grid_wg, key.grid_wg, sizeof key.grid_wg) &&
            !memcmp(x->block, key.block, sizeof key.block))
            cfg = x;
    }
    if (!cfg) {
        cfg = KW_PUSH(&c->arena, r->cfgs);
        if (!cfg)
            return false;
        *cfg = key;
        cfg->arch = d->arch;
    }
    cfg->partial |= key.partial;
    if (cfg->arch != d->arch && (!cfg->arch || !d->arch || strcmp(cfg->arch, d->arch)))
        cfg->mixed_arch = true;
    p = KW_PUSH(&c->arena, cfg->dur);
    if (!p)
        return false;
    *p = dur;
    cfg->total += dur;
    return true;
}

static int kw_trace_collect(kw_tctx *c) {
    kw_err err;
    for (size_t i = 0; i < c->trace.d.n; i++) {
        const kw_dispatch *d = &c->trace.d.v[i];
        size_t *mi = kw_symmap_get(&c->match_of_name, d->name);
        const kw_tmatch *m;
        if (mi) {
            m = &c->matches.v[*mi];
        } else {
            kw_tmatch *nm = KW_PUSH(&c->arena, c->matches);
            if (!nm)
                return kw_oom();
            if (kw_tjoin_match(&c->join, d->name, nm, &err))
                return kw_cli_fail(&err);
            if (kw_symmap_put(&c->match_of_name, d->name, c->matches.n - 1))
                return kw_oom();
            m = nm;
        }
        kw_trow *r = kw_row_for(c, d->name, m);
        if (!r || !kw_add_name(c, r, d->name) || !kw_add_dispatch(c, r, d))
            return kw_oom();
    }
    for (size_t i = 0; i < c->rows.n; i++) {
        kw_trow *r = &c->rows.v[i];
        qsort(r->dur.v, r->dur.n, sizeof(long long), kw_cmp_ll);
        for (size_t j = 0; j < r->cfgs.n; j++)
            qsort(r->cfgs.v[j].dur.v, r->cfgs.v[j].dur.n, sizeof(long long), kw_cmp_ll);
    }
    return KW_EXIT_OK;
}

/* Order: instantiations by total time (descending), then ambiguous names,
 * then names not in the index; ties by name. */
static int kw_row_group(const kw_trow *r) {
    return r->k ? 0 : r->match.n > 1 ? 1 : 2;
}

static const char *kw_row_label(const kw_trow *r) {
    if (!r->k)
        return r->trace_name;
    return r->k->name ? r->k->name : r->k->symbol;
}

static int kw_row_cmp(const void *a, const void *b) {
    const kw_trow *x = a, *y = b;
    int gx = kw_row_group(x), gy = kw_row_group(y);
    if (gx != gy)
        return gx - gy;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    int s = strcmp(kw_row_label(x), kw_row_label(y));
    if (s || !x->k || !y->k)
        return s;
    return strcmp(x->k->symbol, y->k->symbol);
}

/* ---- bytes moved (IR facts) ---- */

typedef struct kw_bytes_result {
    bool known;
    double bytes;        /* per dispatch */
    double flops;        /* per dispatch, < 0 when unknown */
    const char *arch;    /* the arch whose facts were used */
    const char *why;     /* when !known */
} kw_bytes_result;

static const char *kw_cfg_arch(const kw_tctx *c, const kw_trow *r, const kw_tcfg *cfg) {
    if (cfg->arch && !cfg->mixed_arch)
        return cfg->arch;
    if (c->gpu) {
        const kw_gpu *g = kw_gpu_named(&c->gpus, c->gpu);
        if (g)
            return g->arch;
    }
    if (r->k && r->k->k && r->k->k->archs.n == 1)
        return r->k->k->archs.v[0].arch;
    return NULL;
}

/* The most thread/block index combinations summed one by one; beyond, an
 * expression depending on blockIdx is "not known" rather than slow. */
enum { KW_IR_MAX_EVALS = 1 << 20 };

static void kw_set3(kw_shape *s, kw_arena *a, const char *what, const long long v[3]) {
    static const char *const dim[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; d++) {
        char name[32];
        snprintf(name, sizeof name, "%s.%s", what, dim[d]);
        kw_shape_set(s, a, name, (double)v[d], "trace");
    }
}

/* The total of an IR per-thread quantity over all threads of one dispatch:
 * an integer times the threads; an expression evaluated with blockDim and
 * gridDim from the trace (and --shape), summed over every threadIdx of a
 * block when it names threadIdx, and over every blockIdx too when it names
 * blockIdx (while that stays under KW_IR_MAX_EVALS evaluations). */
static bool kw_ir_total(kw_rv ir, const char *key, kw_shape *s, kw_arena *a, const kw_tcfg *cfg,
                        double *out, const char **why) {
    char buf[64];
    kw_rv v = kw_rv_get(ir, key);
    long long n;
    double threads = 1, blocks = 1;
    for (int d = 0; d < 3; d++) {
        threads *= (double)cfg->block[d];
        blocks *= (double)cfg->grid_wg[d];
    }
    if (kw_rv_int(v, &n)) {
        *out = (double)n * threads * blocks;
        return true;
    }
    const char *text = kw_rv_text(v, buf, sizeof buf);
    if (!text) {
        *why = v.kind == KW_R_UNKNOWN_KEY
                   ? "not known (IR facts present, but this kwalk cannot read their "
                     "work_per_thread)"
                   : "not known (the IR facts have no bytes per thread for this kernel)";
        return false;
    }
    if (!strcmp(text, "unknown")) {
        *why = "not known (the IR analysis could not count the bytes per thread)";
        return false;
    }
    bool by_thread = strstr(text, "threadIdx") != NULL;
    bool by_block = strstr(text, "blockIdx") != NULL;
    double evals = (by_thread ? threads : 1) * (by_block ? blocks : 1);
    if (evals > KW_IR_MAX_EVALS) {
        *why = "not known (the bytes per thread depend on the block index; too many blocks to "
               "sum one by one)";
        return false;
    }
    long long bmax[3] = {1, 1, 1}, tmax[3] = {1, 1, 1}, bi[3], ti[3];
    for (int d = 0; d < 3; d++) {
        if (by_block)
            bmax[d] = cfg->grid_wg[d];
        if (by_thread)
            tmax[d] = cfg->block[d];
    }
    double sum = 0;
    kw_value val;
    kw_err err;
    for (bi[2] = 0; bi[2] < bmax[2]; bi[2]++)
        for (bi[1] = 0; bi[1] < bmax[1]; bi[1]++)
            for (bi[0] = 0; bi[0] < bmax[0]; bi[0]++) {
                if (by_block)
                    kw_set3(s, a, "blockIdx", bi);
                for (ti[2] = 0; ti[2] < tmax[2]; ti[2]++)
                    for (ti[1] = 0; ti[1] < tmax[1]; ti[1]++)
                        for (ti[0] = 0; ti[0] < tmax[0]; ti[0]++) {
                            if (by_thread)
                                kw_set3(s, a, "threadIdx", ti);
                            if (kw_expr_eval(text, s, KW_EXPR_EXACT, &val, &err) != KW_OK) {
                                *why = "not known at this launch (the IR facts' expressions need "
                                       "values the trace does not give: --shape NAME=VALUE)";
                                return false;
                            }
                            sum += val.v[0];
                        }
            }
    /* what was not enumerated is uniform: multiply */
    *out = sum * (by_thread ? 1 : threads) * (by_block ? 1 : blocks);
    return true;
}

static kw_bytes_result kw_bytes_moved(kw_tctx *c, const kw_trow *r, const kw_tcfg *cfg) {
    kw_bytes_result b = {.flops = -1, .why = "not known (no IR facts)"};
    const kw_kernel *k = r->k ? r->k->k : NULL;
    if (!k)
        return b;
    const char *arch = kw_cfg_arch(c, r, cfg);
    const kw_kernel_arch *ka = NULL;
    bool any_ir = false;
    for (size_t i = 0; i < k->archs.n; i++) {
        kw_rv ir = kw_rv_get(kw_rv_kernel_arch(&k->archs.v[i]), "ir");
        if (!kw_rv_present(ir))
            continue;
        any_ir = true;
        if (!arch || !strcmp(arch, k->archs.v[i].arch)) {
            ka = &k->archs.v[i];
            break;
        }
    }
    if (!any_ir)
        return b;
    if (!ka) {
        b.why = "not known (IR facts exist for several archs and the trace does not say which "
                "GPU ran it: give --gpu)";
        return b;
    }
    if (!cfg->known) {
        b.why = "not known (the trace has no grid and workgroup sizes)";
        return b;
    }
    kw_rv ir = kw_rv_get(kw_rv_kernel_arch(ka), "ir");
    kw_arena scratch;
    kw_arena_init(&scratch);
    kw_shape s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < c->shape.v.n; i++)
        kw_shape_set(&s, &scratch, c->shape.v.v[i].name, c->shape.v.v[i].value,
                     c->shape.v.v[i].from);
    kw_set3(&s, &scratch, "blockDim", cfg->block);
    kw_set3(&s, &scratch, "gridDim", cfg->grid_wg);
    double rd, wr, fl;
    if (kw_ir_total(ir, "work_per_thread.bytes_read", &s, &scratch, cfg, &rd, &b.why) &&
        kw_ir_total(ir, "work_per_thread.bytes_written", &s, &scratch, cfg, &wr, &b.why)) {
        b.known = true;
        b.bytes = rd + wr;
        b.arch = ka->arch;
        const char *ignore;
        if (kw_ir_total(ir, "work_per_thread.flops", &s, &scratch, cfg, &fl, &ignore))
            b.flops = fl;
    }
    kw_arena_free(&scratch);
    return b;
}

static const kw_gpu *kw_peak_gpu(const kw_tctx *c, const char *arch) {
    if (c->gpu) {
        const kw_gpu *g = kw_gpu_named(&c->gpus, c->gpu);
        return g && !strcmp(g->arch, arch) ? g : NULL;
    }
    return kw_gpu_for_arch(&c->gpus, arch);
}

/* The archs whose peaks are shown for a row: the trace's, else --gpu's, else the kernel's. */
static size_t kw_row_archs(const kw_tctx *c, const kw_trow *r, const char **out, size_t max) {
    size_t n = 0;
    for (size_t i = 0; i < r->cfgs.n && n < max; i++) {
        const char *a = r->cfgs.v[i].arch;
        bool dup = false;
        for (size_t j = 0; j < n; j++)
            dup |= a && !strcmp(out[j], a);
        if (a && !dup)
            out[n++] = a;
    }
    if (n)
        return n;
    if (c->gpu) {
        const kw_gpu *g = kw_gpu_named(&c->gpus, c->gpu);
        if (g) {
            out[0] = g->arch;
            return 1;
        }
    }
    if (r->k && r->k->k)
        for (size_t i = 0; i < r->k->k->archs.n && n < max; i++)
            out[n++] = r->k->k->archs.v[i].arch;
    return n;
}

/* ---- text ---- */

static void kw_us(kw_buf *o, double ns) {
    kw_buf_printf(o, "%.3f us", ns / 1000.0);
}

static void kw_text_stats(kw_buf *o, const long long *v, size_t n, long long total) {
    kw_buf_printf(o, "%zu dispatch%s, total ", n, n == 1 ? "" : "es");
    kw_us(o, (double)total);
    kw_buf_puts(o, ", median ");
    kw_us(o, kw_median(v, n));
    if (n > 1) {
        kw_buf_puts(o, " (min ");
        kw_us(o, (double)v[0]);
        kw_buf_puts(o, ", max ");
        kw_us(o, (double)v[n - 1]);
        kw_buf_puts(o, ")");
    }
}

static void kw_text_cfg(kw_buf *o, const kw_tcfg *cfg) {
    if (!cfg->known) {
        kw_buf_puts(o, "grid and workgroup size not in the trace");
        return;
    }
    kw_buf_printf(o, "grid [%lld, %lld, %lld] workgroups x [%lld, %lld, %lld]", cfg->grid_wg[0],
                  cfg->grid_wg[1], cfg->grid_wg[2], cfg->block[0], cfg->block[1], cfg->block[2]);
    if (cfg->partial)
        kw_buf_puts(o, " (last workgroups partial)");
}

static void kw_text_row(kw_tctx *c, kw_buf *o, const kw_trow *r) {
    if (r->k) {
        kw_buf_printf(o, "%s\n", kw_row_label(r));
        kw_buf_printf(o, "  symbol: %s\n", r->k->symbol);
        kw_buf_printf(o, "  matched by %s:", kw_match_kind_name(r->match.kind));
        for (size_t i = 0; i < r->names.n; i++)
            kw_buf_printf(o, "%s \"%s\"", i ? "," : "", r->names.v[i]);
        kw_buf_puts(o, "\n  ");
        kw_text_stats(o, r->dur.v, r->dur.n, r->total);
        kw_buf_puts(o, "\n  launch configurations:\n");
        for (size_t i = 0; i < r->cfgs.n; i++) {
            const kw_tcfg *cfg = &r->cfgs.v[i];
            kw_buf_puts(o, "    ");
            kw_text_cfg(o, cfg);
            kw_buf_puts(o, ": ");
            kw_text_stats(o, cfg->dur.v, cfg->dur.n, cfg->total);
            kw_buf_puts(o, "\n");
            kw_bytes_result b = kw_bytes_moved(c, r, cfg);
            if (!b.known) {
                kw_buf_printf(o, "      bytes moved: %s\n", b.why);
                continue;
            }
            double med = kw_median(cfg->dur.v, cfg->dur.n);
            kw_buf_printf(o, "      bytes moved: %.0f per dispatch (%s IR facts)\n", b.bytes,
                          b.arch);
            const kw_gpu *g = kw_peak_gpu(c, b.arch);
            if (med > 0) {
                double tbs = b.bytes / med / 1000.0; /* bytes/ns = GB/s */
                kw_buf_printf(o, "      achieved bandwidth at the median: %.3f TB/s", tbs);
                if (g && g->hbm_tbs > 0)
                    kw_buf_printf(o, " = %.1f%% of %s's %.2f TB/s peak", 100 * tbs / g->hbm_tbs,
                                  g->product, g->hbm_tbs);
                kw_buf_puts(o, "\n");
            }
            if (b.flops >= 0 && b.bytes > 0 && g && g->hbm_tbs > 0 && g->fp32_vector_tflops > 0) {
                double ai = b.flops / b.bytes, ridge = g->fp32_vector_tflops / g->hbm_tbs;
                kw_buf_printf(o, "      bound: %s (%.3g FLOP/byte vs. %s's FP32 ridge %.1f)\n",
                              ai < ridge ? "memory" : "compute", ai, g->product, ridge);
            }
        }
        const char *archs[8];
        size_t na = kw_row_archs(c, r, archs, 8);
        if (na) {
            kw_buf_puts(o, "  peak HBM bandwidth:");
            for (size_t i = 0; i < na; i++) {
                const kw_gpu *g = kw_peak_gpu(c, archs[i]);
                if (g && g->hbm_tbs > 0)
                    kw_buf_printf(o, "%s %s %.2f TB/s (%s)", i ? "," : "", g->product, g->hbm_tbs,
                                  archs[i]);
                else
                    kw_buf_printf(o, "%s not known for %s", i ? "," : "", archs[i]);
            }
            kw_buf_puts(o, "\n");
        }
        kw_buf_puts(o, "\n");
        return;
    }
    if (r->match.n > 1) {
        kw_buf_printf(o, "ambiguous: \"%s\"\n  ", r->trace_name);
        kw_text_stats(o, r->dur.v, r->dur.n, r->total);
        kw_buf_printf(o, "\n  matches %zu instantiations (by %s); counted for none of them "
                         "(rocprofv3 --mangled-kernels names each exactly):\n",
                      r->match.n, kw_match_kind_name(r->match.kind));
        for (size_t i = 0; i < r->match.n; i++) {
            const kw_tkernel *k = &c->join.kernels.v[r->match.cand[i]];
            kw_buf_printf(o, "    %s  %s\n", k->name ? k->name : "-", k->symbol);
        }
        kw_buf_puts(o, "\n");
        return;
    }
    kw_buf_printf(o, "not in the index: \"%s\"\n  ", r->trace_name);
    kw_text_stats(o, r->dur.v, r->dur.n, r->total);
    kw_buf_puts(o, "\n\n");
}

static void kw_text(kw_tctx *c, kw_buf *o) {
    size_t inst = 0, amb = 0, unk = 0, d_inst = 0;
    for (size_t i = 0; i < c->rows.n; i++) {
        int g = kw_row_group(&c->rows.v[i]);
        inst += g == 0;
        amb += g == 1;
        unk += g == 2;
        if (g == 0)
            d_inst += c->rows.v[i].dur.n;
    }
    kw_buf_printf(o, "%s (%s): %zu dispatches; %zu joined to %zu kernel instantiation%s, "
                     "%zu ambiguous name%s, %zu name%s not in the index\n",
                  c->trace.path, c->trace.format, c->trace.d.n, d_inst, inst, inst == 1 ? "" : "s",
                  amb, amb == 1 ? "" : "s", unk, unk == 1 ? "" : "s");
    if (!c->join.have_demangler)
        kw_buf_puts(o, "note: no C++ demangler in this process (__cxa_demangle): demangled names "
                       "cannot be joined; use rocprofv3 --mangled-kernels\n");
    kw_buf_puts(o, "\n");
    for (size_t i = 0; i < c->rows.n; i++)
        kw_text_row(c, o, &c->rows.v[i]);
}

/* ---- yaml ---- */

/* A double-quoted YAML scalar; invalid UTF-8 becomes U+FFFD. */
static void kw_yq(kw_buf *o, const char *s) {
    kw_buf_putc(o, '"');
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char ch = *p;
        if (ch == '"' || ch == '\\') {
            kw_buf_putc(o, '\\');
            kw_buf_putc(o, (char)ch);
            p++;
        } else if (ch < 0x20 || ch == 0x7f) {
            kw_buf_printf(o, "\\x%02x", ch);
            p++;
        } else if (ch < 0x80) {
            kw_buf_putc(o, (char)ch);
            p++;
        } else {
            int n = ch >= 0xF0 && ch <= 0xF4 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC2 && ch < 0xE0 ? 2 : 0;
            int ok = n > 0 && !(ch >= 0xF5);
            for (int i = 1; ok && i < n; i++)
                ok = (p[i] & 0xC0) == 0x80;
            if (ok && n == 3 && ch == 0xE0 && p[1] < 0xA0)
                ok = 0;
            if (ok && n == 3 && ch == 0xED && p[1] >= 0xA0)
                ok = 0;
            if (ok && n == 4 && ((ch == 0xF0 && p[1] < 0x90) || (ch == 0xF4 && p[1] >= 0x90)))
                ok = 0;
            if (ok) {
                kw_buf_append(o, p, (size_t)n);
                p += n;
            } else {
                kw_buf_puts(o, "\xEF\xBF\xBD");
                p++;
            }
        }
    }
    kw_buf_putc(o, '"');
}

static void kw_ystats(kw_buf *o, const char *ind, const long long *v, size_t n, long long total) {
    char med[64];
    double m = kw_median(v, n);
    if (m == floor(m))
        snprintf(med, sizeof med, "%.0f", m);
    else
        snprintf(med, sizeof med, "%.1f", m);
    kw_buf_printf(o, "%sdispatches: %zu\n%stotal_ns: %lld\n%smedian_ns: %s\n", ind, n, ind, total,
                  ind, med);
    if (n)
        kw_buf_printf(o, "%smin_ns: %lld\n%smax_ns: %lld\n", ind, v[0], ind, v[n - 1]);
}

static void kw_yaml_row(kw_tctx *c, kw_buf *o, const kw_trow *r) {
    if (r->k) {
        kw_buf_puts(o, "- symbol: ");
        kw_yq(o, r->k->symbol);
        if (r->k->name) {
            kw_buf_puts(o, "\n  name: ");
            kw_yq(o, r->k->name);
        }
        kw_buf_printf(o, "\n  match: %s\n  trace_names:\n", kw_match_kind_name(r->match.kind));
        for (size_t i = 0; i < r->names.n; i++) {
            kw_buf_puts(o, "  - ");
            kw_yq(o, r->names.v[i]);
            kw_buf_puts(o, "\n");
        }
        kw_ystats(o, "  ", r->dur.v, r->dur.n, r->total);
        kw_buf_puts(o, "  launch_configs:\n");
        for (size_t i = 0; i < r->cfgs.n; i++) {
            const kw_tcfg *cfg = &r->cfgs.v[i];
            if (cfg->known)
                kw_buf_printf(o, "  - grid_workgroups: [%lld, %lld, %lld]\n    workgroup_size: "
                                 "[%lld, %lld, %lld]\n    partial_workgroups: %s\n",
                              cfg->grid_wg[0], cfg->grid_wg[1], cfg->grid_wg[2], cfg->block[0],
                              cfg->block[1], cfg->block[2], cfg->partial ? "true" : "false");
            else
                kw_buf_puts(o, "  - grid_workgroups: ~\n    workgroup_size: ~\n");
            if (cfg->arch && !cfg->mixed_arch)
            {
                kw_buf_puts(o, "    arch: ");
                kw_yq(o, cfg->arch);
                kw_buf_puts(o, "\n");
            }
            kw_ystats(o, "    ", cfg->dur.v, cfg->dur.n, cfg->total);
            kw_bytes_result b = kw_bytes_moved(c, r, cfg);
            if (!b.known) {
                kw_buf_puts(o, "    bytes_moved: ~\n    bytes_moved_note: ");
                kw_yq(o, b.why);
                kw_buf_puts(o, "\n");
                continue;
            }
            double med = kw_median(cfg->dur.v, cfg->dur.n);
            kw_buf_printf(o, "    bytes_moved: %.0f\n    ir_arch: ", b.bytes);
            kw_yq(o, b.arch);
            kw_buf_puts(o, "\n");
            if (med > 0) {
                double tbs = b.bytes / med / 1000.0;
                kw_buf_printf(o, "    achieved_tbs: %.6g\n", tbs);
                const kw_gpu *g = kw_peak_gpu(c, b.arch);
                if (g && g->hbm_tbs > 0)
                    kw_buf_printf(o, "    percent_of_peak: %.4g\n", 100 * tbs / g->hbm_tbs);
            }
        }
        const char *archs[8];
        size_t na = kw_row_archs(c, r, archs, 8);
        kw_buf_puts(o, na ? "  peaks:\n" : "  peaks: []\n");
        for (size_t i = 0; i < na; i++) {
            const kw_gpu *g = kw_peak_gpu(c, archs[i]);
            kw_buf_puts(o, "  - arch: ");
            kw_yq(o, archs[i]);
            kw_buf_puts(o, "\n");
            if (g && g->hbm_tbs > 0) {
                kw_buf_puts(o, "    gpu: ");
                kw_yq(o, g->product);
                kw_buf_printf(o, "\n    hbm_tbs: %g\n", g->hbm_tbs);
            }
        }
        return;
    }
    kw_buf_puts(o, "- trace_name: ");
    kw_yq(o, r->trace_name);
    kw_buf_puts(o, "\n");
    kw_ystats(o, "  ", r->dur.v, r->dur.n, r->total);
    if (r->match.n > 1) {
        kw_buf_printf(o, "  match: %s\n  candidates:\n", kw_match_kind_name(r->match.kind));
        for (size_t i = 0; i < r->match.n; i++) {
            const kw_tkernel *k = &c->join.kernels.v[r->match.cand[i]];
            kw_buf_puts(o, "  - symbol: ");
            kw_yq(o, k->symbol);
            if (k->name) {
                kw_buf_puts(o, "\n    name: ");
                kw_yq(o, k->name);
            }
            kw_buf_puts(o, "\n");
        }
    }
}

static void kw_yaml(kw_tctx *c, kw_buf *o) {
    kw_buf_puts(o, "kwalk_trace: 1\ntrace: ");
    kw_yq(o, c->trace.path);
    kw_buf_printf(o, "\nformat: %s\ndispatches: %zu\nskipped_rows: %ld\ndemangler: %s\nindex: ",
                  c->trace.format, c->trace.d.n, c->trace.skipped,
                  c->join.have_demangler ? "true" : "false");
    kw_yq(o, c->db);
    static const char *const group[3] = {"kernels", "ambiguous", "unmatched"};
    for (int g = 0; g < 3; g++) {
        size_t n = 0;
        for (size_t i = 0; i < c->rows.n; i++)
            n += kw_row_group(&c->rows.v[i]) == g;
        kw_buf_printf(o, "\n%s:%s\n", group[g], n ? "" : " []");
        for (size_t i = 0; i < c->rows.n; i++)
            if (kw_row_group(&c->rows.v[i]) == g)
                kw_yaml_row(c, o, &c->rows.v[i]);
    }
    kw_buf_puts(o, "...\n");
}

static void kw_tctx_free(kw_tctx *c) {
    kw_tjoin_free(&c->join);
    kw_gpus_free(&c->gpus);
    kw_annot_free(&c->annot);
    kw_index_free(&c->ix);
    kw_trace_free(&c->trace);
    kw_symmap_free(&c->row_of_kernel);
    kw_symmap_free(&c->row_of_name);
    kw_symmap_free(&c->match_of_name);
    kw_arena_free(&c->arena);
}

int kw_cmd_trace(int argc, char **argv) {
    const char *file = NULL, *db = NULL, *format = "text", *gpu = NULL, *shape = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int m;
        if (kw_cli_is_help(argv[i])) {
            fputs(kw_trace_usage, stdout);
            return kw_cli_flush_stdout();
        } else if ((m = kw_cli_opt(argc, argv, &i, "--db", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--db needs a file");
            db = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--format", NULL, &v)) != 0) {
            if (m < 0 || (strcmp(v, "text") && strcmp(v, "yaml")))
                return kw_cli_usage_error("trace", "--format takes text or yaml");
            format = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--gpu", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--gpu needs a product name");
            gpu = v;
        } else if ((m = kw_cli_opt(argc, argv, &i, "--shape", NULL, &v)) != 0) {
            if (m < 0)
                return kw_cli_usage_error("trace", "--shape needs NAME=VALUE,...");
            shape = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return kw_cli_usage_error("trace", "unknown option '%s'", argv[i]);
        } else if (file) {
            return kw_cli_usage_error("trace", "one trace file at a time ('%s' and '%s')", file,
                                      argv[i]);
        } else {
            file = argv[i];
        }
    }
    if (!file)
        return kw_cli_usage_error("trace", "no trace file given");

    kw_tctx c;
    memset(&c, 0, sizeof c);
    kw_arena_init(&c.arena);
    kw_trace_init(&c.trace);
    kw_index_init(&c.ix);
    kw_symmap_init(&c.row_of_kernel);
    kw_symmap_init(&c.row_of_name);
    kw_symmap_init(&c.match_of_name);
    c.db = db ? db : KW_INDEX_DEFAULT_PATH;
    c.gpu = gpu;
    kw_err err;
    int rc = KW_EXIT_OK;
    if (shape && kw_shape_parse(&c.shape, &c.arena, shape, &err) != KW_OK) {
        rc = kw_cli_usage_error("trace", "--shape: %s", err.msg);
        goto out;
    }
    if (kw_trace_read_file(&c.trace, file, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (kw_index_read_file(&c.ix, c.db, &err) != KW_OK) {
        struct stat st;
        if (!db && stat(KW_INDEX_DEFAULT_PATH, &st) != 0)
            rc = kw_cli_failf("%s (run 'kwalk index DIR' first, or give --db FILE)", err.msg);
        else
            rc = kw_cli_fail(&err);
        goto out;
    }
    if (kw_annot_load(&c.annot, &err) != KW_OK || kw_gpus_load(&c.gpus, &c.annot, &err) != KW_OK ||
        kw_tjoin_init(&c.join, &c.ix, &err) != KW_OK) {
        rc = kw_cli_fail(&err);
        goto out;
    }
    if (gpu && !kw_gpu_named(&c.gpus, gpu)) {
        rc = kw_cli_usage_error("trace", "--gpu: unknown product '%s' (see "
                                         "annotations/hw/amdgpu-peaks.txt)",
                                gpu);
        goto out;
    }
    if ((rc = kw_trace_collect(&c)) != KW_EXIT_OK)
        goto out;
    if (c.rows.n)
        qsort(c.rows.v, c.rows.n, sizeof(kw_trow), kw_row_cmp);
    kw_buf o;
    kw_buf_init(&o);
    if (!strcmp(format, "yaml"))
        kw_yaml(&c, &o);
    else
        kw_text(&c, &o);
    if (o.oom) {
        rc = kw_oom();
    } else {
        fwrite(o.ptr ? o.ptr : "", 1, o.len, stdout);
        rc = kw_cli_flush_stdout();
    }
    kw_buf_free(&o);
out:
    kw_tctx_free(&c);
    return rc;
}
