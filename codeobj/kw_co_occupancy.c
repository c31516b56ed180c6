/* kw_co_occupancy.c: waves per SIMD of a kernel, from its code object's
 * metadata and the processor's facts (annotations/hw/amdgpu-occupancy.txt).
 * The rules are LLVM's, so the result equals the "Occupancy [waves/SIMD]"
 * remark of -Rpass-analysis=kernel-resource-usage (LLVM 22):
 *   GCNSubtarget::computeOccupancy = min(workgroup/LDS term, SGPR term, VGPR term)
 *   VGPR term  IsaInfo::getNumWavesPerEUWithNumVGPRs(max(.vgpr_count, 1))
 *   SGPR term  IsaInfo::getOccupancyWithNumSGPRs(max(.sgpr_count, 1))
 *   WG/LDS     AMDGPUSubtarget::getOccupancyWithWorkGroupSizes(LDS, {min, max}).second
 * Only the metadata's own numbers go in; the one input the code object does
 * not record is the minimum flat workgroup size, taken as 1 (HIP's default and
 * what __launch_bounds__ sets) unless .reqd_workgroup_size fixes it. */
#include <string.h>

#include "kw_co_internal.h"

static unsigned min_u(unsigned a, unsigned b) {
    return a < b ? a : b;
}
static unsigned div_ceil(unsigned a, unsigned b) {
    return (a + b - 1) / b;
}

static unsigned waves_by_vgpr(const kw_co_hw *hw, unsigned vgprs) {
    if (vgprs < hw->vgpr_granule)
        return hw->max_waves_per_simd;
    unsigned rounded = div_ceil(vgprs, hw->vgpr_granule) * hw->vgpr_granule;
    unsigned w = hw->vgprs_per_lane / rounded;
    return min_u(w ? w : 1, hw->max_waves_per_simd);
}

unsigned kw_co_waves_by_vgpr(const kw_co_hw *hw, unsigned vgprs) {
    return waves_by_vgpr(hw, vgprs);
}

static unsigned waves_by_sgpr(const kw_co_hw *hw, unsigned sgprs) {
    for (unsigned i = 0; i < hw->nsgpr_steps; i++)
        if (sgprs <= hw->sgpr_steps[i][0])
            return hw->sgpr_steps[i][1];
    return hw->sgpr_default_waves;
}

/* IsaInfo::getMaxWorkGroupsPerCU */
static unsigned max_wgs_per_cu(const kw_co_hw *hw, unsigned wg_size) {
    unsigned max_waves = hw->max_waves_per_simd * hw->simds_per_cu;
    unsigned n = div_ceil(wg_size, hw->wave_size);
    if (n == 1)
        return max_waves; /* single-wave workgroups use no barrier */
    return min_u(max_waves / n, hw->max_barriers_per_cu);
}

/* AMDGPUSubtarget::getOccupancyWithWorkGroupSizes(LDSBytes, {min, max}).second */
static unsigned waves_by_workgroups(const kw_co_hw *hw, unsigned lds, unsigned min_wg,
                                    unsigned max_wg) {
    unsigned max_wgs_lds = hw->lds_bytes_per_cu / (lds ? lds : 1);
    if (!max_wgs_lds)
        return 1;
    unsigned wave = hw->wave_size, per_eu = hw->max_waves_per_simd, eus = hw->simds_per_cu;
    unsigned min_waves_per_wg = div_ceil(min_wg, wave);
    unsigned max_wgs = min_u(max_wgs_per_cu(hw, min_wg), max_wgs_lds);
    unsigned max_waves_cu = min_waves_per_wg * max_wgs;
    unsigned max_waves_per_wg = div_ceil(max_wg, wave);
    unsigned min_wgs = min_u(max_wgs_per_cu(hw, max_wg), max_wgs_lds);
    unsigned min_waves_cu = max_waves_per_wg * min_wgs;
    if (min_waves_cu >= max_waves_cu) {
        max_waves_cu = min_waves_cu;
    } else {
        /* a larger group than the minimum may fill leftover wave slots */
        unsigned slots = per_eu * eus;
        unsigned leftover = slots - max_wgs * min_waves_per_wg;
        unsigned per_wg = leftover / max_wgs;
        if (per_wg)
            max_waves_cu +=
                max_wgs * min_u(per_wg, (max_wg - 1) / wave + 1 - min_waves_per_wg);
    }
    unsigned w = div_ceil(max_waves_cu, eus);
    return w < 1 ? 1 : w > per_eu ? per_eu : w;
}

void kw_co_occupancy_compute(const kw_co_object *obj, const kw_co_kernel *k, unsigned min_wg,
                             unsigned max_wg, kw_co_occupancy *o) {
    memset(o, 0, sizeof *o);
    const kw_co_hw *hw = kw_co_hw_lookup(obj->arch);
    const kw_co_resources *r = &k->res;
    if (!hw) {
        o->unknown_reason = kw_co_hw_error() ? kw_co_hw_error()
                                             : "no hardware data for this processor in "
                                               "annotations/hw/amdgpu-occupancy.txt";
        return;
    }
    if (r->vgpr < 0 || r->sgpr < 0) {
        o->unknown_reason = "the metadata has no .vgpr_count/.sgpr_count";
        return;
    }
    if (r->wavefront_size > 0 && (unsigned)r->wavefront_size != hw->wave_size) {
        o->unknown_reason = "wavefront size differs from the processor's (wave32 is not modelled)";
        return;
    }
    if (max_wg == 0 || min_wg == 0 || min_wg > max_wg || max_wg > 1024) {
        o->unknown_reason = "no valid flat workgroup size (.max_flat_workgroup_size)";
        return;
    }
    unsigned lds = r->lds_bytes > 0 ? (r->lds_bytes > UINT32_MAX ? UINT32_MAX : (unsigned)r->lds_bytes) : 0;
    unsigned vg = r->vgpr > 0 ? (r->vgpr > 65535 ? 65535 : (unsigned)r->vgpr) : 1;
    unsigned sg = r->sgpr > 0 ? (r->sgpr > 65535 ? 65535 : (unsigned)r->sgpr) : 1;
    o->known = true;
    o->min_wg = min_wg;
    o->max_wg = max_wg;
    o->max_waves = hw->max_waves_per_simd;
    o->by_vgpr = waves_by_vgpr(hw, vg);
    o->by_sgpr = min_u(waves_by_sgpr(hw, sg), hw->max_waves_per_simd);
    o->by_workgroup = waves_by_workgroups(hw, 0, min_wg, max_wg);
    o->by_lds = waves_by_workgroups(hw, lds, min_wg, max_wg);
    o->waves = min_u(min_u(o->by_vgpr, o->by_sgpr), o->by_lds);
    if (o->waves < o->max_waves) {
        if (o->by_vgpr == o->waves)
            o->limiters |= KW_CO_LIMIT_VGPR;
        if (o->by_sgpr == o->waves)
            o->limiters |= KW_CO_LIMIT_SGPR;
        if (o->by_lds == o->waves && o->by_lds < o->by_workgroup)
            o->limiters |= KW_CO_LIMIT_LDS;
        if (o->by_workgroup == o->waves)
            o->limiters |= KW_CO_LIMIT_WORKGROUP;
    }
}

void kw_co_occupancy_at_block(const kw_co_hw *hw, long long vgpr, long long sgpr, long long lds,
                              unsigned block, kw_co_occ_block *o) {
    memset(o, 0, sizeof *o);
    if (!hw || vgpr < 0 || sgpr < 0 || block == 0 || block > 1024 || !hw->simds_per_cu ||
        !hw->wave_size)
        return;
    unsigned vg = vgpr > 0 ? (vgpr > 65535 ? 65535 : (unsigned)vgpr) : 1;
    unsigned sg = sgpr > 0 ? (sgpr > 65535 ? 65535 : (unsigned)sgpr) : 1;
    unsigned regs = min_u(min_u(waves_by_vgpr(hw, vg), waves_by_sgpr(hw, sg)),
                          hw->max_waves_per_simd);
    unsigned per_wg = div_ceil(block, hw->wave_size);
    unsigned wgs = regs * hw->simds_per_cu / per_wg;
    if (div_ceil(wgs * per_wg, hw->simds_per_cu) < regs)
        o->limiters |= KW_CO_BLOCK_SIZE;
    if (per_wg > 1 && hw->max_barriers_per_cu < wgs) {
        wgs = hw->max_barriers_per_cu;
        o->limiters = KW_CO_BLOCK_BARRIERS;
    }
    unsigned by_lds = lds > 0 ? (unsigned)(hw->lds_bytes_per_cu / (unsigned long long)lds) : wgs;
    if (by_lds < wgs) {
        wgs = by_lds;
        o->limiters = KW_CO_BLOCK_LDS;
    } else if (lds > 0 && by_lds == wgs && o->limiters & KW_CO_BLOCK_BARRIERS) {
        o->limiters |= KW_CO_BLOCK_LDS;
    }
    o->known = true;
    o->block = block;
    o->waves_per_wg = per_wg;
    o->wgs_per_cu = wgs;
    o->by_regs = regs;
    o->waves = min_u(div_ceil(wgs * per_wg, hw->simds_per_cu), regs);
    if (o->waves >= regs)
        o->limiters = 0;
}

const char *kw_co_block_limiter_name(unsigned limiters) {
    static const char *const names[8] = {"none",          "block size",          "barriers",
                                         "block size+barriers", "lds",           "block size+lds",
                                         "barriers+lds",  "block size+barriers+lds"};
    return names[limiters & 7];
}

const char *kw_co_limiter_name(unsigned limiters) {
    static const char *const names[16] = {
        "none",          "vgpr",          "sgpr",          "vgpr+sgpr",
        "lds",           "vgpr+lds",      "sgpr+lds",      "vgpr+sgpr+lds",
        "workgroup",     "vgpr+workgroup", "sgpr+workgroup", "vgpr+sgpr+workgroup",
        "lds+workgroup", "vgpr+lds+workgroup", "sgpr+lds+workgroup", "vgpr+sgpr+lds+workgroup"};
    return names[limiters & 15];
}
