// kw_functor_args.cpp: the template arguments of the kernel struct a
// trampoline kernel runs (ck_tile's kentry<..., GemmKernel<...>, ...>),
// broken out level by level under their own parameter names:
// TilePartitioner_, TilePartitioner_.BlockGemmShape_, GemmPipeline_.Problem_.kPadM
// = true, ... (sidecar `functor_args`). A type argument also gets the
// namespace-scope alias the source spelled it with (ck_tile::bf16_t for
// unsigned short) where the sugar of the kernel's reference still holds it.
#include "kw_kernels.h"

#include "clang/AST/DeclTemplate.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace kwalk {

namespace {

const unsigned MaxArgs = 256; // per kernel: a bound on the broken-out list
const int MaxDepth = 6;

// The written template specialization a (sugared) type spells, through
// typedefs, aliases (an alias template to the argument it results in) and
// substituted template parameters; null if none.
// A parameter substituted with an unsugared type is followed to what its
// caller wrote (Calls).
const TemplateSpecializationType *writtenSpecialization(ASTContext &Ctx, QualType T,
                                                        const CallArgs *Calls) {
    for (int Step = 0; !T.isNull() && Step < 64; Step++) {
        const auto *S = dyn_cast<TemplateSpecializationType>(T.getTypePtr());
        if (S && !S->isTypeAlias())
            return S;
        QualType Next = T.getSingleStepDesugaredType(Ctx);
        // An alias template whose result is one of its own arguments
        // (std::conditional_t<B, TwoPass, OnePass>): that argument as written,
        // whose sugar the alias's instantiation lost to canonical types.
        if (S) {
            for (const TemplateArgument &A : S->template_arguments())
                if (A.getKind() == TemplateArgument::Type && Ctx.hasSameType(A.getAsType(), T)) {
                    Next = A.getAsType();
                    break;
                }
        }
        if (const auto *ST = dyn_cast<SubstTemplateTypeParmType>(T.getTypePtr())) {
            Next = ST->getReplacementType();
            if (Next == Ctx.getCanonicalType(Next))
                if (QualType W = callerWritten(Ctx, Calls, ST); !W.isNull())
                    Next = W;
        }
        if (Next == T)
            return nullptr;
        T = Next;
    }
    return nullptr;
}

class FunctorArgs {
  public:
    FunctorArgs(CaptureContext &C, kw_kernel &K, const CallArgs *Calls)
        : C(C), K(K), Calls(Calls) {}

    void walk(QualType Canon, QualType Sugared, const std::string &Path, int Depth) {
        const auto *CTSD =
            dyn_cast_or_null<ClassTemplateSpecializationDecl>(Canon->getAsCXXRecordDecl());
        if (!CTSD || Depth > MaxDepth)
            return;
        const TemplateParameterList *TPL =
            CTSD->getSpecializedTemplate()->getTemplateParameters();
        const TemplateArgumentList &Args = CTSD->getTemplateArgs();
        llvm::ArrayRef<TemplateArgument> Written;
        bool Packs = false;
        for (const NamedDecl *P : *TPL)
            Packs |= P->isParameterPack();
        if (const TemplateSpecializationType *TST = writtenSpecialization(C.ast(), Sugared, Calls);
            TST && !Packs)
            Written = TST->template_arguments(); // one to one with the parameters
        for (unsigned I = 0; I < Args.size() && K.functor_args.n < MaxArgs; I++) {
            const TemplateArgument &A = Args[I];
            std::string Name = I < TPL->size() && !TPL->getParam(I)->getName().empty()
                                   ? TPL->getParam(I)->getName().str()
                                   : "#" + std::to_string(I);
            std::string Full = Path.empty() ? Name : Path + "." + Name;
            QualType Sub = I < Written.size() && Written[I].getKind() == TemplateArgument::Type
                               ? Written[I].getAsType()
                               : QualType();
            if (!push(A, Full, Sub))
                return;
            if (A.getKind() == TemplateArgument::Type)
                walk(A.getAsType().getCanonicalType(), Sub, Full, Depth + 1);
        }
    }

  private:
    CaptureContext &C;
    kw_kernel &K;
    const CallArgs *Calls;

    bool push(const TemplateArgument &A, const std::string &Name, QualType Sugared) {
        kw_template_arg *TA = KW_PUSH(C.arena(), K.functor_args);
        if (!TA)
            return false;
        TA->name = C.str(Name);
        TA->kind = A.getKind() == TemplateArgument::Type   ? "type"
                   : A.getKind() == TemplateArgument::Pack ? "pack"
                   : A.getKind() == TemplateArgument::Template ||
                           A.getKind() == TemplateArgument::TemplateExpansion
                       ? "template"
                       : "value";
        std::string V;
        llvm::raw_string_ostream OS(V);
        A.print(C.policy(), OS, /*IncludeType=*/false);
        TA->value = C.str(OS.str());
        TA->defaulted = A.getIsDefaulted();
        if (A.getKind() == TemplateArgument::Type && !Sugared.isNull()) {
            std::string W = writtenTypeName(C.ast(), Sugared, C.policy(), Calls);
            if (!W.empty() && W != OS.str())
                TA->written = C.str(W);
        }
        return true;
    }
};

} // namespace

void functorArgs(CaptureContext &C, kw_kernel &K, QualType Functor, QualType Sugared,
                 const CallArgs *Calls) {
    FunctorArgs(C, K, Calls).walk(Functor.getCanonicalType(), Sugared, std::string(), 0);
}

} // namespace kwalk
