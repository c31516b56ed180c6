/* fuzz_codeobj.c: the fuzz target of the code-object readers: bytes go
 * through the whole path a user's file takes (recognition, bundle and CCOB
 * unwrapping, .hip_fatbin scanning, ELF and symbol reading, the msgpack
 * metadata note, occupancy, disassembly, line tables, YAML through kwco_yaml.c
 * and the one YAML writer) and through the
 * bare bundle walker. Built for libFuzzer when the C compiler is clang
 * (LLVMFuzzerTestOneInput), else linked with fuzz_driver.c, a small
 * mutation loop; both run under ASan+UBSan. */
#include <stddef.h>
#include <stdint.h>

#include "codeobj/kw_codeobj.h"
#include "kwco_yaml.h"

static kw_status count_entry(void *ctx, const char *id, const void *data, size_t size,
                             kw_err *err) {
    (void)id;
    (void)data;
    (void)err;
    *(size_t *)ctx += size;
    return KW_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kw_err err;
    size_t total = 0;
    (void)kw_co_foreach_entry("fuzz", data, size, count_entry, &total, &err);

    kw_co_set set;
    kw_co_set_init(&set);
    if (kw_co_load(&set, "fuzz", data, size, &err) == KW_OK) {
        kw_buf out;
        kw_buf_init(&out);
        kw_co_write_summary(&out, &set);
        size_t code = 0;
        for (size_t i = 0; i < set.objects.n; i++)
            for (size_t j = 0; j < set.objects.v[i].kernels.n; j++)
                code += set.objects.v[i].kernels.v[j].code_size;
        /* disassemble only what is small enough to keep iterations fast */
        (void)kwco_write_yaml(&out, &set, code < (1u << 16), KW_CO_WANT_LINES, &err);
        kw_buf_free(&out);
    }
    kw_co_set_free(&set);
    return 0;
}
