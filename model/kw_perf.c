/* kw_perf.c: bytes and FLOP per dispatch from the IR facts (for a
 * measured dispatch, from the facts of the arch it ran on), achieved
 * bandwidth, ridge point and bound classification (kw_perf.h), shared by
 * section 4 of the walkthroughs and `kwalk trace`. */
#include "model/kw_perf.h"

#include <stdio.h>
#include <string.h>

const kw_gpu *kw_perf_gpu(const kw_gpus *g, const char *gpu, const char *arch) {
    if (!arch)
        return NULL;
    if (gpu) {
        const kw_gpu *p = kw_gpu_named(g, gpu);
        return p && !strcmp(p->arch, arch) ? p : NULL;
    }
    return kw_gpu_for_arch(g, arch);
}

static void kw_perf_set3(kw_shape *s, kw_arena *a, const char *what, const long long v[3],
                         const char *from) {
    static const char *const dim[3] = {"x", "y", "z"};
    for (int d = 0; d < 3; d++) {
        char name[32];
        snprintf(name, sizeof name, "%s.%s", what, dim[d]);
        kw_shape_set(s, a, name, (double)v[d], from);
    }
}

/* The total of one per-thread quantity over the dispatch (kw_perf.h). s has
 * blockDim and gridDim bound; threadIdx / blockIdx are bound here. */
static bool kw_perf_total(const kw_val *v, kw_shape *s, kw_arena *a, const long long block[3],
                          const long long grid[3], double *out, const char **why) {
    char buf[64];
    double threads = 1, blocks = 1;
    for (int d = 0; d < 3; d++) {
        threads *= (double)block[d];
        blocks *= (double)grid[d];
    }
    if (v->kind == KW_VAL_NUM) {
        *out = (double)v->num * threads * blocks;
        return true;
    }
    const char *text = kw_val_text(v, buf, sizeof buf);
    if (!text) {
        *why = "not known (the IR facts have no bytes per thread for this kernel)";
        return false;
    }
    if (!strcmp(text, "unknown")) {
        *why = "not known (the IR analysis could not count the bytes per thread)";
        return false;
    }
    bool by_thread = strstr(text, "threadIdx") != NULL;
    bool by_block = strstr(text, "blockIdx") != NULL;
    double evals = (by_thread ? threads : 1) * (by_block ? blocks : 1);
    if (evals > KW_PERF_MAX_EVALS) {
        *why = "not known (the bytes per thread depend on the thread or block index; too many "
               "to sum one by one)";
        return false;
    }
    long long bmax[3] = {1, 1, 1}, tmax[3] = {1, 1, 1}, bi[3], ti[3];
    for (int d = 0; d < 3; d++) {
        if (by_block)
            bmax[d] = grid[d];
        if (by_thread)
            tmax[d] = block[d];
    }
    double sum = 0;
    kw_value val;
    kw_err err;
    for (bi[2] = 0; bi[2] < bmax[2]; bi[2]++)
        for (bi[1] = 0; bi[1] < bmax[1]; bi[1]++)
            for (bi[0] = 0; bi[0] < bmax[0]; bi[0]++) {
                if (by_block)
                    kw_perf_set3(s, a, "blockIdx", bi, "dispatch");
                for (ti[2] = 0; ti[2] < tmax[2]; ti[2]++)
                    for (ti[1] = 0; ti[1] < tmax[1]; ti[1]++)
                        for (ti[0] = 0; ti[0] < tmax[0]; ti[0]++) {
                            if (by_thread)
                                kw_perf_set3(s, a, "threadIdx", ti, "dispatch");
                            if (kw_expr_eval(text, s, KW_EXPR_EXACT, &val, &err) != KW_OK) {
                                *why = "not known at this launch (the IR facts' expressions need "
                                       "values the dispatch does not give: --shape NAME=VALUE)";
                                return false;
                            }
                            sum += val.v[0];
                        }
            }
    /* what was not enumerated is uniform: multiply */
    *out = sum * (by_thread ? 1 : threads) * (by_block ? 1 : blocks);
    return true;
}

void kw_perf_dispatch_work(const kw_irf *ir, const kw_shape *shape, const long long block[3],
                           const long long grid[3], kw_perf_work *out) {
    memset(out, 0, sizeof(*out));
    out->flops = -1;
    out->why = "not known (no IR facts)";
    if (!ir)
        return;
    kw_arena scratch;
    kw_arena_init(&scratch);
    kw_shape s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; shape && i < shape->v.n; i++)
        kw_shape_add(&s, &scratch, &shape->v.v[i]);
    kw_perf_set3(&s, &scratch, "blockDim", block, "dispatch");
    kw_perf_set3(&s, &scratch, "gridDim", grid, "dispatch");
    double rd, wr, fl;
    const char *ignore;
    if (kw_perf_total(&ir->work_per_thread.bytes_read, &s, &scratch, block, grid, &rd, &out->why) &&
        kw_perf_total(&ir->work_per_thread.bytes_written, &s, &scratch, block, grid, &wr,
                      &out->why)) {
        out->known = true;
        out->bytes = rd + wr;
        out->why = NULL;
        if (kw_perf_total(&ir->work_per_thread.flops, &s, &scratch, block, grid, &fl, &ignore))
            out->flops = fl;
    }
    kw_arena_free(&scratch);
}

void kw_perf_kernel_work(const kw_kernel *k, const char *arch, bool known, const long long block[3],
                         const long long grid[3], const kw_shape *shape, kw_perf_work *out,
                         const char **ir_arch) {
    memset(out, 0, sizeof(*out));
    out->flops = -1;
    out->why = "not known (no IR facts)";
    *ir_arch = NULL;
    if (!k)
        return;
    const kw_kernel_arch *ka = NULL;
    size_t with_ir = 0;
    for (size_t i = 0; i < k->archs.n; i++) {
        if (!k->archs.v[i].ir)
            continue;
        with_ir++;
        if (arch ? !strcmp(arch, k->archs.v[i].arch) : !ka)
            ka = &k->archs.v[i];
    }
    if (!with_ir)
        return;
    if (!ka || (!arch && with_ir > 1)) {
        out->why = arch ? "not known (no IR facts for the arch the dispatches ran on)"
                        : "not known (IR facts exist for several archs and the trace does not "
                          "say which GPU ran it: give --gpu)";
        return;
    }
    if (!known) {
        out->why = "not known (the trace has no grid and workgroup sizes)";
        return;
    }
    kw_perf_dispatch_work(ka->ir, shape, block, grid, out);
    if (out->known)
        *ir_arch = ka->arch;
}

kw_perf_bw kw_perf_bandwidth(double bytes, double ns, const kw_gpu *g) {
    kw_perf_bw b = {.tbs = -1, .of_peak = -1};
    if (!(ns > 0) || bytes < 0)
        return b;
    b.tbs = bytes / ns / 1000.0; /* bytes per ns = GB/s */
    if (g && g->hbm_tbs > 0)
        b.of_peak = b.tbs / g->hbm_tbs;
    return b;
}

double kw_perf_ridge(const kw_gpu *g) {
    if (!g || !(g->hbm_tbs > 0) || !(g->fp32_vector_tflops > 0))
        return -1;
    return g->fp32_vector_tflops / g->hbm_tbs;
}

kw_perf_bound kw_perf_classify(double flops, double bytes, double blocks, const kw_gpu *g) {
    kw_perf_bound b = {.kind = KW_BOUND_UNKNOWN, .intensity = -1, .ridge = kw_perf_ridge(g)};
    if (flops >= 0 && bytes > 0)
        b.intensity = flops / bytes;
    if (b.intensity >= 0 && b.ridge > 0)
        b.kind = b.intensity < b.ridge ? KW_BOUND_MEMORY : KW_BOUND_COMPUTE;
    b.launch = blocks >= 0 && g && g->compute_units > 0 && blocks < g->compute_units;
    b.name = kw_perf_bound_name(b.kind);
    return b;
}

const char *kw_perf_bound_name(kw_perf_bound_kind k) {
    switch (k) {
    case KW_BOUND_MEMORY:
        return "memory-bound";
    case KW_BOUND_COMPUTE:
        return "compute-bound";
    case KW_BOUND_UNKNOWN:
        break;
    }
    return "not classified";
}
