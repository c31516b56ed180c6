/* kw_sidecar.c: the sidecar document's life cycle (init/free) and the schema
 * tables that describe its YAML form key by key (the single source of the
 * key order documented in docs/sidecar-schema.md; the IR facts' tables are
 * kw_sidecar_ir.c). The generic walkers of the tables are kw_schema.c. */
#include "sidecar/kw_schema.h"

#include <string.h>

/* ---- Tables, in the documented key order ---------------------------------------------------- */

static const kw_field kw_f_template_arg[] = {
    {"name", KW_F_STR, offsetof(kw_template_arg, name), NULL, 0, NULL},
    {"kind", KW_F_STR, offsetof(kw_template_arg, kind), NULL, 0, NULL},
    {"value", KW_F_STR, offsetof(kw_template_arg, value), NULL, 0, NULL},
    {"written", KW_F_STR, offsetof(kw_template_arg, written), NULL, 0, NULL},
    {"defaulted", KW_F_BOOL, offsetof(kw_template_arg, defaulted), NULL, 0, NULL},
};
static KW_TYPE(kw_t_template_arg, "template argument", kw_template_arg, true, kw_f_template_arg);

static const kw_field kw_f_param_field[] = {
    {"name", KW_F_STR, offsetof(kw_param_field, name), NULL, 0, NULL},
    {"type", KW_F_STR, offsetof(kw_param_field, type), NULL, 0, NULL},
    {"offset", KW_F_BYTES, offsetof(kw_param_field, offset), NULL, 0, NULL},
};
static KW_TYPE(kw_t_param_field, "parameter field", kw_param_field, true, kw_f_param_field);

static const kw_field kw_f_param[] = {
    {"name", KW_F_STR, offsetof(kw_param, name), NULL, 0, NULL},
    {"type", KW_F_STR, offsetof(kw_param, type), NULL, 0, NULL},
    {"pack", KW_F_STR, offsetof(kw_param, pack), NULL, 0, NULL},
    {"fields", KW_F_LIST, offsetof(kw_param, fields), &kw_t_param_field, 0, NULL},
};
static KW_TYPE(kw_t_param, "parameter", kw_param, true, kw_f_param);

static const kw_field kw_f_attr[] = {
    {"name", KW_F_STR, offsetof(kw_attr, name), NULL, 0, NULL},
    {"value", KW_F_STR, offsetof(kw_attr, value), NULL, 0, NULL},
};
static KW_TYPE(kw_t_attr, "attribute", kw_attr, true, kw_f_attr);

static const kw_field kw_f_shared[] = {
    {"name", KW_F_STR, offsetof(kw_shared_var, name), NULL, 0, NULL},
    {"type", KW_F_STR, offsetof(kw_shared_var, type), NULL, 0, NULL},
    {"bytes", KW_F_BYTES, offsetof(kw_shared_var, bytes), NULL, 0, NULL},
    {"function", KW_F_STR, offsetof(kw_shared_var, function), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_shared_var, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_shared, "shared variable", kw_shared_var, false, kw_f_shared);

static const kw_field kw_f_inline_asm[] = {
    {"text", KW_F_STR, offsetof(kw_inline_asm, text), NULL, 0, NULL},
    {"function", KW_F_STR, offsetof(kw_inline_asm, function), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_inline_asm, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_inline_asm, "inline asm", kw_inline_asm, false, kw_f_inline_asm);

static const kw_field kw_f_call[] = {
    {"caller", KW_F_STR, offsetof(kw_call, caller), NULL, 0, NULL},
    {"name", KW_F_STR, offsetof(kw_call, name), NULL, 0, NULL},
    {"symbol", KW_F_STR, offsetof(kw_call, symbol), NULL, 0, NULL},
    {"depth", KW_F_INT, offsetof(kw_call, depth), NULL, 0, NULL},
    {"system", KW_F_BOOL, offsetof(kw_call, system), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_call, location), NULL, 0, NULL},
    {"callee_location", KW_F_LOC, offsetof(kw_call, callee_location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_call, "call", kw_call, true, kw_f_call);

#define KW_RES(name) {#name, KW_F_BYTES, offsetof(kw_isa_resources, name), NULL, 0, NULL}
static const kw_field kw_f_isa_resources[] = {
    KW_RES(vgpr), KW_RES(agpr), KW_RES(sgpr), KW_RES(vgpr_spill), KW_RES(sgpr_spill),
    KW_RES(lds_bytes), KW_RES(scratch_bytes), KW_RES(kernarg_bytes), KW_RES(wavefront_size),
    KW_RES(max_flat_workgroup_size), KW_RES(occupancy),
    {"occupancy_limiter", KW_F_STR, offsetof(kw_isa_resources, occupancy_limiter), NULL, 0, NULL},
};
#undef KW_RES
static KW_TYPE(kw_t_isa_resources, "resources", kw_isa_resources, true, kw_f_isa_resources);

#define KW_CLS(name) {#name, KW_F_BYTES, offsetof(kw_isa_classes, name), NULL, 0, NULL}
static const kw_field kw_f_isa_classes[] = {
    KW_CLS(salu),        KW_CLS(valu),          KW_CLS(valu_packed),  KW_CLS(valu_trans),
    KW_CLS(cvt_fp8_fp4),    KW_CLS(mfma),          KW_CLS(smfmac),       KW_CLS(wmma),
    KW_CLS(readlane),    KW_CLS(writelane),     KW_CLS(readfirstlane), KW_CLS(permlane),
    KW_CLS(vmem_load),   KW_CLS(vmem_store),    KW_CLS(vmem_atomic),  KW_CLS(smem),
    KW_CLS(lds),         KW_CLS(ds_swizzle),   KW_CLS(ds_bpermute), KW_CLS(ds_permute),
    KW_CLS(branch),      KW_CLS(waitcnt),       KW_CLS(barrier),      KW_CLS(nop),
    KW_CLS(other),       KW_CLS(dpp),           KW_CLS(sdwa),         KW_CLS(insns),
};
#undef KW_CLS
static KW_TYPE(kw_t_isa_classes, "classes", kw_isa_classes, true, kw_f_isa_classes);

static const kw_field kw_f_isa_count[] = {
    {"key", KW_F_STR, offsetof(kw_isa_count, key), NULL, KW_F_REQUIRED, NULL},
    {"bytes", KW_F_BYTES, offsetof(kw_isa_count, bytes), NULL, 0, NULL},
    {"n", KW_F_BYTES, offsetof(kw_isa_count, n), NULL, 0, NULL},
};
static KW_TYPE(kw_t_isa_count, "count", kw_isa_count, true, kw_f_isa_count);

static const kw_field kw_f_loc_only[] = {
    {"at", KW_F_LOC, 0, NULL, 0, NULL},
};
static KW_TYPE(kw_t_loc_only, "location", kw_loc, true, kw_f_loc_only);

static const kw_field kw_f_isa_line[] = {
    {"offset", KW_F_BYTES, offsetof(kw_isa_line, offset), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_isa_line, location), NULL, 0, NULL},
    {"inlined_at", KW_F_LIST, offsetof(kw_isa_line, inlined_at), &kw_t_loc_only, 0, NULL},
};
static KW_TYPE(kw_t_isa_line, "line", kw_isa_line, true, kw_f_isa_line);

/* The first field is the key of the archs mapping; the others form the value
 * mapping. */
static const kw_field kw_f_kernel_arch[] = {
    {"arch", KW_F_STR, offsetof(kw_kernel_arch, arch), NULL, KW_F_REQUIRED, NULL},
    {"target_id", KW_F_STR, offsetof(kw_kernel_arch, target_id), NULL, 0, NULL},
    {"resources", KW_F_MAP, offsetof(kw_kernel_arch, resources), &kw_t_isa_resources, 0, NULL},
    {"classes", KW_F_MAP, offsetof(kw_kernel_arch, classes), &kw_t_isa_classes, 0, NULL},
    {"dpp_patterns", KW_F_LIST, offsetof(kw_kernel_arch, dpp_patterns), &kw_t_isa_count, 0, NULL},
    {"memory", KW_F_LIST, offsetof(kw_kernel_arch, memory), &kw_t_isa_count, 0, NULL},
    {"isa", KW_F_STR, offsetof(kw_kernel_arch, isa), NULL, 0, NULL},
    {"lines_note", KW_F_STR, offsetof(kw_kernel_arch, lines_note), NULL, 0, NULL},
    {"lines", KW_F_LIST, offsetof(kw_kernel_arch, lines), &kw_t_isa_line, 0, NULL},
    {"isa_note", KW_F_STR, offsetof(kw_kernel_arch, isa_note), NULL, 0, NULL},
    {"ir", KW_F_PTR, offsetof(kw_kernel_arch, ir), &kw_t_irf, 0, NULL},
};
KW_TYPE(kw_t_kernel_arch, "arch", kw_kernel_arch, false, kw_f_kernel_arch);

void kw_kernel_arch_init(kw_kernel_arch *a) {
    memset(a, 0, sizeof(*a));
    kw_schema_defaults(&kw_t_kernel_arch, a);
}

/* Is any field of the record obj of type t present? */
static bool kw_sidecar_any_present(const kw_type *t, const void *obj) {
    for (size_t i = 0; i < t->nfields; i++)
        if (kw_schema_present(t, &t->fields[i], obj))
            return true;
    return false;
}

bool kw_isa_resources_known(const kw_isa_resources *r) {
    return kw_sidecar_any_present(&kw_t_isa_resources, r);
}

bool kw_isa_classes_known(const kw_isa_classes *c) {
    return kw_sidecar_any_present(&kw_t_isa_classes, c);
}

const char *kw_isa_class_key(size_t i) {
    return i < KW_N(kw_f_isa_classes) ? kw_f_isa_classes[i].key : NULL;
}

long long kw_isa_class_count(const kw_isa_classes *c, size_t i) {
    if (i >= KW_N(kw_f_isa_classes))
        return -1;
    return *(const long long *)((const unsigned char *)c + kw_f_isa_classes[i].off);
}

static const kw_field kw_f_triton_option[] = {
    {"name", KW_F_STR, offsetof(kw_triton_option, name), NULL, 0, NULL},
    {"value", KW_F_SCALAR, offsetof(kw_triton_option, value), NULL, 0, NULL},
};
static KW_TYPE(kw_t_triton_option, "Triton option", kw_triton_option, true, kw_f_triton_option);

static const kw_field kw_f_triton_constexpr[] = {
    {"name", KW_F_STR, offsetof(kw_triton_constexpr, name), NULL, 0, NULL},
    {"value", KW_F_STR, offsetof(kw_triton_constexpr, value), NULL, 0, NULL},
    {"from", KW_F_STR, offsetof(kw_triton_constexpr, from), NULL, 0, NULL},
    {"why", KW_F_STR, offsetof(kw_triton_constexpr, why), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_triton_constexpr, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_triton_constexpr, "Triton constexpr", kw_triton_constexpr, true,
               kw_f_triton_constexpr);

static const kw_field kw_f_triton_layout[] = {
    {"name", KW_F_STR, offsetof(kw_triton_layout, name), NULL, KW_F_REQUIRED, NULL},
    {"kind", KW_F_STR, offsetof(kw_triton_layout, kind), NULL, 0, NULL},
    {"params", KW_F_STR, offsetof(kw_triton_layout, params), NULL, 0, NULL},
};
static KW_TYPE(kw_t_triton_layout, "Triton layout", kw_triton_layout, true, kw_f_triton_layout);

static const kw_field kw_f_triton_memop[] = {
    {"op", KW_F_STR, offsetof(kw_triton_memop, op), NULL, KW_F_REQUIRED, NULL},
    {"value", KW_F_STR, offsetof(kw_triton_memop, value), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_triton_memop, location), NULL, 0, NULL},
    {"shape", KW_F_INTS, offsetof(kw_triton_memop, shape), NULL, 0, NULL},
    {"element", KW_F_STR, offsetof(kw_triton_memop, element), NULL, 0, NULL},
    {"layout", KW_F_STR, offsetof(kw_triton_memop, layout), NULL, 0, NULL},
    {"dot_k", KW_F_BYTES, offsetof(kw_triton_memop, dot_k), NULL, 0, NULL},
    {"dot_element", KW_F_STR, offsetof(kw_triton_memop, dot_element), NULL, 0, NULL},
    {"loops", KW_F_BYTES, offsetof(kw_triton_memop, loops), NULL, 0, NULL},
    {"trips", KW_F_STR, offsetof(kw_triton_memop, trips), NULL, 0, NULL},
};
static KW_TYPE(kw_t_triton_memop, "Triton memory op", kw_triton_memop, true, kw_f_triton_memop);

static const kw_field kw_f_path_prefix[] = {
    {"from", KW_F_STR, offsetof(kw_path_prefix, from), NULL, KW_F_REQUIRED, NULL},
    {"to", KW_F_STR, offsetof(kw_path_prefix, to), NULL, KW_F_REQUIRED, NULL},
};
static KW_TYPE(kw_t_path_prefix, "path prefix", kw_path_prefix, true, kw_f_path_prefix);

const char *kw_path_prefix_map(kw_arena *a, const kw_path_prefix *prefixes, size_t np,
                               const char *file) {
    if (!file)
        return NULL;
    for (size_t i = 0; i < np; i++) {
        const char *f = prefixes[i].from;
        size_t n = strlen(f);
        while (n > 1 && f[n - 1] == '/')
            n--;
        if (!strncmp(file, f, n) && (file[n] == '/' || file[n] == '\0')) {
            const char *m = kw_arena_printf(a, "%s%s", prefixes[i].to, file + n);
            return m ? m : file;
        }
    }
    return file;
}

static const kw_field kw_f_triton[] = {
    {"hash", KW_F_STR, offsetof(kw_triton, hash), NULL, KW_F_REQUIRED, NULL},
    {"cache_key", KW_F_STR, offsetof(kw_triton, cache_key), NULL, 0, NULL},
    {"cache_dir", KW_F_STR, offsetof(kw_triton, cache_dir), NULL, 0, NULL},
    {"files", KW_F_STRS, offsetof(kw_triton, files), NULL, 0, NULL},
    {"triton_version", KW_F_STR, offsetof(kw_triton, triton_version), NULL, 0, NULL},
    {"backend", KW_F_STR, offsetof(kw_triton, backend), NULL, 0, NULL},
    {"warp_size", KW_F_BYTES, offsetof(kw_triton, warp_size), NULL, 0, NULL},
    {"shared_bytes", KW_F_BYTES, offsetof(kw_triton, shared_bytes), NULL, 0, NULL},
    {"options", KW_F_LIST, offsetof(kw_triton, options), &kw_t_triton_option, KW_F_FLOW, NULL},
    {"constexprs", KW_F_LIST, offsetof(kw_triton, constexprs), &kw_t_triton_constexpr, 0, NULL},
    {"constexprs_note", KW_F_STR, offsetof(kw_triton, constexprs_note), NULL, 0, NULL},
    {"cache_hit", KW_F_BOOL, offsetof(kw_triton, cache_hit), NULL, KW_F_IF_TRUE, NULL},
    {"compiled_at", KW_F_LOC, offsetof(kw_triton, compiled_at), NULL, 0, NULL},
    {"layouts", KW_F_LIST, offsetof(kw_triton, layouts), &kw_t_triton_layout, 0, NULL},
    {"memory_ops", KW_F_LIST, offsetof(kw_triton, memory_ops), &kw_t_triton_memop, 0, NULL},
    {"ir_note", KW_F_STR, offsetof(kw_triton, ir_note), NULL, 0, NULL},
    {"map_prefix", KW_F_LIST, offsetof(kw_triton, map_prefix), &kw_t_path_prefix, KW_F_FLOW,
     NULL},
};
KW_TYPE(kw_t_triton, "Triton facts", kw_triton, false, kw_f_triton);

static const kw_field kw_f_kernel[] = {
    {"symbol", KW_F_STR, offsetof(kw_kernel, symbol), NULL, KW_F_REQUIRED, NULL},
    {"name", KW_F_STR, offsetof(kw_kernel, name), NULL, 0, NULL},
    {"language", KW_F_STR, offsetof(kw_kernel, language), NULL, 0, NULL},
    {"template", KW_F_STR, offsetof(kw_kernel, template_name), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_kernel, location), NULL, 0, NULL},
    {"linkage", KW_F_STR, offsetof(kw_kernel, linkage), NULL, 0, NULL},
    {"tu", KW_F_STR, offsetof(kw_kernel, tu), NULL, 0, NULL},
    {"functor", KW_F_STR, offsetof(kw_kernel, functor), NULL, 0, NULL},
    {"functor_location", KW_F_LOC, offsetof(kw_kernel, functor_location), NULL, 0, NULL},
    {"functor_args", KW_F_LIST, offsetof(kw_kernel, functor_args), &kw_t_template_arg, 0, NULL},
    {"doc", KW_F_STR, offsetof(kw_kernel, doc), NULL, 0, NULL},
    {"not_in_object", KW_F_STR, offsetof(kw_kernel, not_in_object), NULL, 0, NULL},
    {"template_args", KW_F_LIST, offsetof(kw_kernel, template_args), &kw_t_template_arg, 0, NULL},
    {"params", KW_F_LIST, offsetof(kw_kernel, params), &kw_t_param, 0, NULL},
    {"attrs", KW_F_LIST, offsetof(kw_kernel, attrs), &kw_t_attr, 0, NULL},
    {"shared", KW_F_LIST, offsetof(kw_kernel, shared), &kw_t_shared, 0, NULL},
    {"inline_asm", KW_F_LIST, offsetof(kw_kernel, inline_asm), &kw_t_inline_asm, 0, NULL},
    {"calls", KW_F_LIST, offsetof(kw_kernel, calls), &kw_t_call, 0, NULL},
    {"triton", KW_F_PTR, offsetof(kw_kernel, triton), &kw_t_triton, 0, NULL},
    {"archs", KW_F_KEYED, offsetof(kw_kernel, archs), &kw_t_kernel_arch, KW_F_ALWAYS, NULL},
};
KW_TYPE(kw_t_kernel, "kernel", kw_kernel, false, kw_f_kernel);

static const kw_field kw_f_macro_expansion[] = {
    {"macro", KW_F_STR, offsetof(kw_macro_expansion, macro), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_macro_expansion, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_macro_expansion, "macro expansion", kw_macro_expansion, true,
               kw_f_macro_expansion);

static const kw_field kw_f_chain_link[] = {
    {"function", KW_F_STR, offsetof(kw_chain_link, function), NULL, 0, NULL},
    {"symbol", KW_F_STR, offsetof(kw_chain_link, symbol), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_chain_link, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_chain_link, "instantiation chain link", kw_chain_link, true, kw_f_chain_link);

/* config is a mapping of four members of kw_launch itself. */
static const kw_field kw_f_config[] = {
    {"grid", KW_F_DIM3, offsetof(kw_launch, grid), NULL, 0, NULL},
    {"block", KW_F_DIM3, offsetof(kw_launch, block), NULL, 0, NULL},
    {"shared_mem", KW_F_DIM1, offsetof(kw_launch, shared_mem), NULL, 0, NULL},
    {"stream", KW_F_DIM1, offsetof(kw_launch, stream), NULL, 0, NULL},
};
static KW_TYPE(kw_t_config, "launch configuration", kw_launch, false, kw_f_config);

static const kw_field kw_f_operand_decl[] = {
    {"operand", KW_F_STR, offsetof(kw_operand_decl, operand), NULL, 0, NULL},
    {"name", KW_F_STR, offsetof(kw_operand_decl, name), NULL, 0, NULL},
    {"kind", KW_F_STR, offsetof(kw_operand_decl, kind), NULL, 0, NULL},
    {"text", KW_F_STR, offsetof(kw_operand_decl, text), NULL, 0, NULL},
    {"init", KW_F_STR, offsetof(kw_operand_decl, init), NULL, 0, NULL},
    {"inlined", KW_F_STR, offsetof(kw_operand_decl, inlined), NULL, 0, NULL},
    {"modified", KW_F_BOOL, offsetof(kw_operand_decl, modified), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_operand_decl, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_operand_decl, "operand declaration", kw_operand_decl, false, kw_f_operand_decl);

static const kw_field kw_f_launch_arg[] = {
    {"param", KW_F_STR, offsetof(kw_launch_arg, param), NULL, 0, NULL},
    {"expr", KW_F_STR, offsetof(kw_launch_arg, expr), NULL, 0, NULL},
    {"params", KW_F_STRS, offsetof(kw_launch_arg, params), NULL, 0, NULL},
};
static KW_TYPE(kw_t_launch_arg, "launch argument", kw_launch_arg, true, kw_f_launch_arg);

static const kw_field kw_f_guard[] = {
    {"kind", KW_F_STR, offsetof(kw_guard, kind), NULL, 0, NULL},
    {"condition", KW_F_STR, offsetof(kw_guard, condition), NULL, 0, NULL},
    {"holds", KW_F_BOOL, offsetof(kw_guard, holds), NULL, 0, NULL},
    {"constant", KW_F_STR, offsetof(kw_guard, constant), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_guard, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_guard, "guard", kw_guard, true, kw_f_guard);

static const kw_field kw_f_constant[] = {
    {"name", KW_F_STR, offsetof(kw_constant, name), NULL, 0, NULL},
    {"kind", KW_F_STR, offsetof(kw_constant, kind), NULL, 0, NULL},
    {"value", KW_F_SCALAR, offsetof(kw_constant, value), NULL, 0, NULL},
    {"init", KW_F_STR, offsetof(kw_constant, init), NULL, 0, NULL},
};
static KW_TYPE(kw_t_constant, "constant", kw_constant, true, kw_f_constant);

static const kw_field kw_f_asm_candidate[] = {
    {"asm_kernel", KW_F_STR, offsetof(kw_asm_candidate, asm_kernel), NULL, 0, NULL},
    {"code_object", KW_F_STR, offsetof(kw_asm_candidate, code_object), NULL, 0, NULL},
    {"file", KW_F_STR, offsetof(kw_asm_candidate, file), NULL, 0, NULL},
    {"arch", KW_F_STR, offsetof(kw_asm_candidate, arch), NULL, 0, NULL},
    {"condition", KW_F_STR, offsetof(kw_asm_candidate, condition), NULL, 0, NULL},
    {"fields", KW_F_STR, offsetof(kw_asm_candidate, fields), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_asm_candidate, location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_asm_candidate, "ASM candidate", kw_asm_candidate, true, kw_f_asm_candidate);

static const kw_field kw_f_asm_choice[] = {
    {"construction", KW_F_LOC, offsetof(kw_asm_choice, construction), NULL, 0, NULL},
    {"table", KW_F_STR, offsetof(kw_asm_choice, table), NULL, 0, NULL},
    {"table_location", KW_F_LOC, offsetof(kw_asm_choice, table_location), NULL, 0, NULL},
    {"lookup", KW_F_STR, offsetof(kw_asm_choice, lookup), NULL, 0, NULL},
    {"rows", KW_F_INT, offsetof(kw_asm_choice, rows), NULL, 0, NULL},
    {"candidates", KW_F_LIST, offsetof(kw_asm_choice, candidates), &kw_t_asm_candidate, 0, NULL},
    {"wrapper", KW_F_STR, offsetof(kw_asm_choice, wrapper), NULL, 0, NULL},
    {"wrapper_location", KW_F_LOC, offsetof(kw_asm_choice, wrapper_location), NULL, 0, NULL},
};
static KW_TYPE(kw_t_asm_choice, "ASM table choice", kw_asm_choice, false, kw_f_asm_choice);

static const kw_field kw_f_launch[] = {
    {"kernel", KW_F_STR, offsetof(kw_launch, kernel), NULL, 0, NULL},
    {"kernel_name", KW_F_STR, offsetof(kw_launch, kernel_name), NULL, 0, NULL},
    {"kind", KW_F_STR, offsetof(kw_launch, kind), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_launch, location), NULL, 0, NULL},
    {"library", KW_F_STR, offsetof(kw_launch, library), NULL, 0, NULL},
    {"site", KW_F_LOC, offsetof(kw_launch, site), NULL, 0, NULL},
    {"asm_kernel", KW_F_STR, offsetof(kw_launch, asm_kernel), NULL, 0, NULL},
    {"code_object", KW_F_STR, offsetof(kw_launch, code_object), NULL, 0, NULL},
    {"loader", KW_F_STR, offsetof(kw_launch, loader), NULL, 0, NULL},
    {"asm_choices", KW_F_LIST, offsetof(kw_launch, asm_choices), &kw_t_asm_choice, 0, NULL},
    {"macro_expansions", KW_F_LIST, offsetof(kw_launch, macro_expansions), &kw_t_macro_expansion, 0,
     NULL},
    {"function", KW_F_STR, offsetof(kw_launch, function), NULL, 0, NULL},
    {"function_symbol", KW_F_STR, offsetof(kw_launch, function_symbol), NULL, 0, NULL},
    {"callee", KW_F_STR, offsetof(kw_launch, callee), NULL, 0, NULL},
    {"instantiation_chain", KW_F_LIST, offsetof(kw_launch, instantiation_chain), &kw_t_chain_link,
     0, NULL},
    {"call_chain", KW_F_LIST, offsetof(kw_launch, call_chain), &kw_t_chain_link, 0, NULL},
    {"config", KW_F_MAP, 0, &kw_t_config, 0, NULL},
    {"operand_decls", KW_F_LIST, offsetof(kw_launch, operand_decls), &kw_t_operand_decl, 0, NULL},
    {"args", KW_F_LIST, offsetof(kw_launch, args), &kw_t_launch_arg, 0, NULL},
    {"guards", KW_F_LIST, offsetof(kw_launch, guards), &kw_t_guard, 0, NULL},
    {"constants", KW_F_LIST, offsetof(kw_launch, constants), &kw_t_constant, 0, NULL},
    {"dead", KW_F_BOOL, offsetof(kw_launch, dead), NULL, KW_F_IF_TRUE, NULL},
};
KW_TYPE(kw_t_launch, "launch", kw_launch, false, kw_f_launch);

static const kw_field kw_f_entry[] = {
    {"name", KW_F_STR, offsetof(kw_entry, name), NULL, 0, NULL},
    {"kind", KW_F_STR, offsetof(kw_entry, kind), NULL, 0, NULL},
    {"function", KW_F_STR, offsetof(kw_entry, function), NULL, 0, NULL},
    {"function_symbol", KW_F_STR, offsetof(kw_entry, function_symbol), NULL, 0, NULL},
    {"module", KW_F_STR, offsetof(kw_entry, module), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_entry, location), NULL, 0, NULL},
};
KW_TYPE(kw_t_entry, "entry", kw_entry, false, kw_f_entry);

static const kw_field kw_f_host_call[] = {
    {"caller", KW_F_STR, offsetof(kw_host_call, caller), NULL, 0, NULL},
    {"callee", KW_F_STR, offsetof(kw_host_call, callee), NULL, 0, NULL},
    {"caller_name", KW_F_STR, offsetof(kw_host_call, caller_name), NULL, 0, NULL},
    {"callee_name", KW_F_STR, offsetof(kw_host_call, callee_name), NULL, 0, NULL},
    {"location", KW_F_LOC, offsetof(kw_host_call, location), NULL, 0, NULL},
    {"guards", KW_F_LIST, offsetof(kw_host_call, guards), &kw_t_guard, 0, NULL},
    {"constants", KW_F_LIST, offsetof(kw_host_call, constants), &kw_t_constant, 0, NULL},
    {"dead", KW_F_BOOL, offsetof(kw_host_call, dead), NULL, KW_F_IF_TRUE, NULL},
};
KW_TYPE(kw_t_host_call, "host call", kw_host_call, true, kw_f_host_call);

static const kw_field kw_f_producer[] = {
    {"name", KW_F_STR, offsetof(kw_producer, name), NULL, 0, NULL},
    {"version", KW_F_STR, offsetof(kw_producer, version), NULL, 0, NULL},
    {"clang_version", KW_F_STR, offsetof(kw_producer, clang_version), NULL, 0, NULL},
};
KW_TYPE(kw_t_producer, "producer", kw_producer, true, kw_f_producer);

static const kw_field kw_f_code_object[] = {
    {"arch", KW_F_STR, offsetof(kw_code_object, arch), NULL, 0, NULL},
    {"target_id", KW_F_STR, offsetof(kw_code_object, target_id), NULL, 0, NULL},
    {"bytes", KW_F_BYTES, offsetof(kw_code_object, bytes), NULL, 0, NULL},
    {"md5", KW_F_STR, offsetof(kw_code_object, md5), NULL, 0, NULL},
};
static KW_TYPE(kw_t_code_object, "code object", kw_code_object, true, kw_f_code_object);

static const kw_field kw_f_tu[] = {
    {"source", KW_F_STR, offsetof(kw_tu, source), NULL, 0, NULL},
    {"object", KW_F_STR, offsetof(kw_tu, object), NULL, 0, NULL},
    {"cuid", KW_F_STR, offsetof(kw_tu, cuid), NULL, 0, NULL},
    {"offload_archs", KW_F_STRS, offsetof(kw_tu, offload_archs), NULL, 0, NULL},
    {"code_objects", KW_F_LIST, offsetof(kw_tu, code_objects), &kw_t_code_object, 0, NULL},
};
KW_TYPE(kw_t_tu, "translation unit", kw_tu, true, kw_f_tu);

/* The top level after kwalk_schema (which the reader and writer handle
 * themselves, as it must come first). */
static const kw_field kw_f_sidecar[] = {
    {"producer", KW_F_MAP, offsetof(kw_sidecar, producer), &kw_t_producer, KW_F_ALWAYS, NULL},
    {"translation_unit", KW_F_MAP, offsetof(kw_sidecar, tu), &kw_t_tu, KW_F_ALWAYS, NULL},
    {"kernels", KW_F_LIST, offsetof(kw_sidecar, kernels), &kw_t_kernel, KW_F_ALWAYS, NULL},
    {"launches", KW_F_LIST, offsetof(kw_sidecar, launches), &kw_t_launch, KW_F_ALWAYS, NULL},
    {"entries", KW_F_LIST, offsetof(kw_sidecar, entries), &kw_t_entry, KW_F_ALWAYS, NULL},
    {"host_calls", KW_F_LIST, offsetof(kw_sidecar, host_calls), &kw_t_host_call, KW_F_ALWAYS, NULL},
};
KW_TYPE(kw_t_sidecar, "sidecar", kw_sidecar, false, kw_f_sidecar);

/* ---- Life cycle ----------------------------------------------------------------------------- */

void kw_sidecar_init(kw_sidecar *sc) {
    memset(sc, 0, sizeof(*sc));
    kw_arena_init(&sc->arena);
    sc->schema = KW_SCHEMA_VERSION;
}

void kw_sidecar_free(kw_sidecar *sc) {
    kw_arena_free(&sc->arena);
    kw_sidecar_init(sc);
}
