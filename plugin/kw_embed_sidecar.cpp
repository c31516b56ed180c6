// kw_embed_sidecar.cpp: the sidecar record as module-level assembly of the host
// module (kw_embed_sidecar.h). The section is named with no flags ("": not SHF_ALLOC,
// not SHF_EXCLUDE), so it is never loaded, and linkers keep it: `ld -r`,
// archives and final links concatenate the records of their inputs. An IR
// global could not say this: a global with an explicit section is allocated
// unless it is marked !exclude, which a final link drops.
#include "kw_embed_sidecar.h"

extern "C" {
#include "sidecar/kw_sidecar_embed.h"
}

#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <string>

namespace kwalk {
namespace {

// Bytes as .ascii directives: printable characters as they are, the rest
// (most of a zstd frame) as three-digit octal escapes.
std::string asciiDirectives(const unsigned char *P, size_t N) {
    static const char Oct[] = "01234567";
    std::string S;
    S.reserve(N * 4 + N / 64 * 12 + 64);
    for (size_t I = 0; I < N; I += 64) {
        S += "\t.ascii\t\"";
        for (size_t J = I; J < N && J < I + 64; J++) {
            unsigned char C = P[J];
            if (C >= 0x20 && C < 0x7f && C != '"' && C != '\\') {
                S += static_cast<char>(C);
            } else {
                S += '\\';
                S += Oct[(C >> 6) & 7];
                S += Oct[(C >> 3) & 7];
                S += Oct[C & 7];
            }
        }
        S += "\"\n";
    }
    return S;
}

} // namespace

kw_status embedSidecar(llvm::Module &M, const kw_sidecar &Doc, kw_err *Err) {
    llvm::Triple T(M.getTargetTriple());
    if (!T.isOSBinFormatELF())
        return kw_fail(Err, "embed mode needs an ELF host object (the target is %s)",
                       T.str().c_str());
    char *Rec = nullptr;
    size_t N = 0;
    if (kw_sidecar_embed_record(&Doc, &Rec, &N, Err) != KW_OK)
        return KW_ERR;
    // '@' starts a comment on some targets' assembly; '%' is read on all
    const char *Type = T.isX86() ? "@progbits" : "%progbits";
    std::string Asm = std::string("\t.pushsection\t" KW_EMBED_SECTION ",\"\",") + Type + "\n" +
                      asciiDirectives(reinterpret_cast<const unsigned char *>(Rec), N) +
                      "\t.popsection\n";
    std::free(Rec);
    M.appendModuleInlineAsm(Asm);
    return KW_OK;
}

} // namespace kwalk
