// kw_kernels.cpp: the device-job visitors: kernels, their template
// arguments, and what their bodies reach (calls, __shared__, inline asm). A
// call of a helper frame (annotations/calltree/helpers.txt: static_for, its
// lambdas, sequence / tuple helpers) is not an edge: the helper's calls are
// recorded as its caller's; the calls of a leaf (leaves.txt: a library's
// internals, such as tensor-descriptor machinery) are not recorded.
#include "kw_kernels.h"

#include "kw_compat.h"
#include "kw_params.h"

extern "C" {
#include "sidecar/kw_call_graph.h"
}

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/RawCommentList.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

using namespace clang;

namespace kwalk {

std::string kernelSymbol(ASTContext &Ctx, const FunctionDecl *FD) {
    std::unique_ptr<MangleContext> MC(Ctx.createMangleContext());
    std::string S;
    llvm::raw_string_ostream OS(S);
    if (MC->shouldMangleDeclName(FD))
        MC->mangleName(GlobalDecl(FD, KernelReferenceKind::Kernel), OS);
    else
        OS << FD->getName();
    return OS.str();
}

const char *kernelSymbolText(CaptureContext &C, const FunctionDecl *FD) {
    auto Known = C.KernelSymbols.find(FD);
    if (Known != C.KernelSymbols.end())
        return Known->second;
    const char *S = C.str(kernelSymbol(C.ast(), FD));
    C.KernelSymbols[FD] = S;
    return S;
}

// The type arguments each reference to a function template specialization
// wrote (launch_quant_t<bf16_t, fp8_t>(...)), per specialization and
// parameter index, in the order found. Clang substitutes a function
// template's canonical arguments into its body, so a kernel launched there
// with `traits<in_t, out_t, 8>` sees `in_t` as __bf16; the caller's
// spelling is found here instead.
struct CallArgs {
    std::map<const Decl *, std::map<unsigned, std::vector<QualType>>> Args;
    std::string spelled(ASTContext &Ctx, const Decl *Spec, unsigned Index, QualType Canon,
                        const PrintingPolicy &Policy, int Depth) const;
    // The first type a reference to Spec wrote (or, for a deduced
    // parameter, a call's argument had) for its parameter Index that is
    // Canon with sugar; null when none.
    QualType written(ASTContext &Ctx, const Decl *Spec, unsigned Index, QualType Canon) const;
};

namespace {

// The name the source used for a type template argument when it differs
// from the canonical type: the namespace-scope typedef or alias it was
// spelled with (opus::fp8_t for _BitInt(8)), found by following the
// argument's sugar through local and member aliases, substituted template
// parameters (to what a caller wrote for a function template's parameter,
// with Calls), and alias templates whose result is one of their own
// arguments (std::conditional_t<true, opus::fp8_t, X>). Empty when there is
// none.
std::string writtenTypeNameIn(ASTContext &Ctx, QualType T, const PrintingPolicy &Policy,
                              int Depth = 0, const CallArgs *Calls = nullptr) {
    if (T.isNull() || T->isDependentType() || Depth > 8)
        return std::string();
    QualType Canon = Ctx.getCanonicalType(T);
    // An alias of the global namespace (an example's `using ADataType =
    // Types::ADataType`) is the name only when the chain reaches no alias of
    // a named namespace (ck_tile::half_t).
    std::string Global;
    for (int Step = 0; Step < 64; Step++) {
        if (T.hasLocalQualifiers())
            return Global; // const/volatile spellings: not a plain name
        const Type *Ty = T.getTypePtr();
        if (const auto *TT = dyn_cast<TypedefType>(Ty)) {
            const TypedefNameDecl *D = TT->getDecl();
            const DeclContext *DC = D->getDeclContext()->getRedeclContext();
            if (DC->isFileContext()) {
                std::string S;
                llvm::raw_string_ostream OS(S);
                D->printQualifiedName(OS, Policy);
                if (!DC->isTranslationUnit())
                    return OS.str();
                if (Global.empty())
                    Global = OS.str();
            }
        } else if (const auto *ST = dyn_cast<SubstTemplateTypeParmType>(Ty)) {
            std::string S =
                writtenTypeNameIn(Ctx, ST->getReplacementType(), Policy, Depth + 1, Calls);
            if (S.empty() && Calls)
                S = Calls->spelled(Ctx, ST->getAssociatedDecl(), ST->getIndex(), Canon, Policy,
                                   Depth + 1);
            return S.empty() ? Global : S;
        } else if (const auto *TST = dyn_cast<TemplateSpecializationType>(Ty);
                   TST && TST->isTypeAlias()) {
            std::string Pick;
            for (const TemplateArgument &A : TST->template_arguments()) {
                if (A.getKind() != TemplateArgument::Type || !Ctx.hasSameType(A.getAsType(), Canon))
                    continue;
                std::string S = writtenTypeNameIn(Ctx, A.getAsType(), Policy, Depth + 1, Calls);
                if (!S.empty() && !Pick.empty() && S != Pick)
                    return std::string(); // two names for the result: none is the one
                if (!S.empty())
                    Pick = S;
            }
            if (!Pick.empty())
                return Pick;
        }
        QualType Next = T.getSingleStepDesugaredType(Ctx);
        if (Next == T)
            break;
        T = Next;
    }
    return Global;
}

} // namespace

std::string CallArgs::spelled(ASTContext &Ctx, const Decl *Spec, unsigned Index, QualType Canon,
                              const PrintingPolicy &Policy, int Depth) const {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(Spec);
    auto F = FD ? Args.find(FD->getCanonicalDecl()) : Args.end();
    if (F == Args.end())
        return std::string();
    auto I = F->second.find(Index);
    if (I == F->second.end())
        return std::string();
    for (QualType Q : I->second) {
        if (!Ctx.hasSameType(Q, Canon))
            continue;
        std::string S = writtenTypeNameIn(Ctx, Q, Policy, Depth, this);
        if (!S.empty())
            return S;
    }
    return std::string();
}

QualType CallArgs::written(ASTContext &Ctx, const Decl *Spec, unsigned Index,
                           QualType Canon) const {
    const auto *FD = dyn_cast_or_null<FunctionDecl>(Spec);
    auto F = FD ? Args.find(FD->getCanonicalDecl()) : Args.end();
    if (F == Args.end())
        return QualType();
    auto I = F->second.find(Index);
    if (I == F->second.end())
        return QualType();
    for (QualType Q : I->second)
        if (Ctx.hasSameType(Q, Canon) && Q != Ctx.getCanonicalType(Q))
            return Q;
    return QualType();
}

namespace {

// A type argument as the source spelled it: its typedef name
// (writtenTypeName), or for a class template specialization written with
// typedef-named arguments, the template with every argument, each as spelled
// where written that way and canonical otherwise (defaulted ones included):
// aiter::rmsnorm_quant_opus_traits<opus::bf16_t, opus::fp8_t, 8>. Empty when
// no part of it was spelled with a typedef name.
std::string spelledType(ASTContext &Ctx, QualType T, const PrintingPolicy &Policy, int Depth = 0,
                        const CallArgs *Calls = nullptr) {
    std::string N = writtenTypeNameIn(Ctx, T, Policy, 0, Calls);
    if (!N.empty() || T.isNull() || T->isDependentType() || Depth > 8)
        return N;
    const TemplateSpecializationType *TST = nullptr;
    for (int Step = 0; Step < 64 && !TST; Step++) {
        if (T.hasLocalQualifiers())
            return std::string();
        const auto *S = dyn_cast<TemplateSpecializationType>(T.getTypePtr());
        if (S && !S->isTypeAlias()) {
            TST = S;
            break;
        }
        QualType Next = isa<SubstTemplateTypeParmType>(T.getTypePtr())
                            ? cast<SubstTemplateTypeParmType>(T.getTypePtr())->getReplacementType()
                            : T.getSingleStepDesugaredType(Ctx);
        if (Next == T)
            return std::string();
        T = Next;
    }
    const CXXRecordDecl *RD = TST ? T->getAsCXXRecordDecl() : nullptr;
    const auto *CTSD = dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD);
    if (!CTSD)
        return std::string();
    const TemplateParameterList *TPL = CTSD->getSpecializedTemplate()->getTemplateParameters();
    for (const NamedDecl *P : *TPL)
        if (P->isParameterPack())
            return std::string(); // written arguments past a pack do not map one to one
    llvm::ArrayRef<TemplateArgument> Written = TST->template_arguments();
    const TemplateArgumentList &Args = CTSD->getTemplateArgs();
    bool Changed = false;
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    CTSD->getSpecializedTemplate()->printQualifiedName(OS, Policy);
    OS << '<';
    for (unsigned I = 0; I < Args.size(); I++) {
        if (I)
            OS << ", ";
        std::string S;
        if (I < Written.size() && Written[I].getKind() == TemplateArgument::Type &&
            Args[I].getKind() == TemplateArgument::Type)
            S = spelledType(Ctx, Written[I].getAsType(), Policy, Depth + 1, Calls);
        if (!S.empty()) {
            Changed = true;
            OS << S;
        } else {
            Args[I].print(Policy, OS, /*IncludeType=*/false);
        }
    }
    OS << '>';
    return Changed ? OS.str() : std::string();
}

class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
  public:
    KernelFinder(ASTContext &Ctx, const PrintingPolicy &Policy) : Ctx(Ctx), Policy(Policy) {}
    std::vector<const FunctionDecl *> Kernels;
    // Fewest template arguments written explicitly at any reference to a kernel
    // specialization: arguments past that count were deduced or defaulted.
    std::map<const FunctionDecl *, unsigned> ExplicitArgs;
    // Per kernel specialization and argument index: how the first reference
    // that spelled that argument with a typedef name wrote it (spelledType),
    // filled by resolveWritten() once every reference has been seen.
    std::map<const FunctionDecl *, std::map<unsigned, std::string>> Written;
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl());
        if (!FD || !FD->getPrimaryTemplate())
            return true;
        unsigned N = DRE->getNumTemplateArgs();
        bool Kernel = FD->hasAttr<CUDAGlobalAttr>();
        if (Kernel) {
            auto It = ExplicitArgs.find(FD->getCanonicalDecl());
            if (It == ExplicitArgs.end())
                ExplicitArgs[FD->getCanonicalDecl()] = N;
            else if (N < It->second)
                It->second = N;
        }
        // Written arguments map to parameters one to one up to the first pack.
        const TemplateParameterList *TPL = FD->getPrimaryTemplate()->getTemplateParameters();
        unsigned Mapped = 0;
        while (Mapped < N && Mapped < TPL->size() && !TPL->getParam(Mapped)->isParameterPack())
            Mapped++;
        for (unsigned I = 0; I < Mapped; I++) {
            const TemplateArgument &A = DRE->getTemplateArgs()[I].getArgument();
            if (A.getKind() != TemplateArgument::Type)
                continue;
            std::vector<QualType> &Seen = Calls.Args[FD->getCanonicalDecl()][I];
            // distinct spellings, enough to find a typedef among
            if (Seen.size() < 16 &&
                std::find(Seen.begin(), Seen.end(), A.getAsType()) == Seen.end())
                Seen.push_back(A.getAsType());
        }
        return true;
    }
    // A deduced type parameter (make_kernel's KernelImpl, from `Kernel{}`):
    // the type of the call's argument for a function parameter declared as
    // that template parameter (by value or reference), sugar kept.
    bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *FD = CE->getDirectCallee();
        const FunctionTemplateDecl *T = FD ? FD->getPrimaryTemplate() : nullptr;
        if (!T)
            return true;
        const FunctionDecl *Pattern = T->getTemplatedDecl();
        unsigned Depth = T->getTemplateParameters()->getDepth();
        unsigned Shift = isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(FD) ? 1 : 0;
        for (unsigned I = 0; I < Pattern->getNumParams() && I + Shift < CE->getNumArgs(); I++) {
            QualType PT = Pattern->getParamDecl(I)->getType().getNonReferenceType();
            const auto *TP = PT.getUnqualifiedType()->getAs<TemplateTypeParmType>();
            if (!TP || TP->getDepth() != Depth || TP->isParameterPack() ||
                Pattern->getParamDecl(I)->isParameterPack())
                continue;
            const Expr *A = CE->getArg(I + Shift)->IgnoreImplicit();
            if (const auto *M = dyn_cast<MaterializeTemporaryExpr>(A))
                A = M->getSubExpr()->IgnoreImplicit();
            QualType Q = A->getType().getUnqualifiedType();
            if (Q.isNull() || Q == Ctx.getCanonicalType(Q) || Q->isDependentType())
                continue;
            std::vector<QualType> &Seen = Calls.Args[FD->getCanonicalDecl()][TP->getIndex()];
            if (Seen.size() < 16 && std::find(Seen.begin(), Seen.end(), Q) == Seen.end())
                Seen.push_back(Q);
        }
        return true;
    }
    // Written, from every reference's arguments: a kernel launched inside a
    // function template gets the spelling of that template's callers.
    void resolveWritten() {
        for (const FunctionDecl *FD : Kernels) {
            auto It = Calls.Args.find(FD->getCanonicalDecl());
            if (It == Calls.Args.end() || Written.count(FD->getCanonicalDecl()))
                continue;
            std::map<unsigned, std::string> &W = Written[FD->getCanonicalDecl()];
            for (const auto &[I, Types] : It->second)
                for (QualType Q : Types) {
                    std::string S = spelledType(Ctx, Q, Policy, 0, &Calls);
                    if (!S.empty()) {
                        W[I] = S;
                        break;
                    }
                }
        }
    }
    bool VisitFunctionDecl(FunctionDecl *FD) {
        if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
            !FD->isDependentContext())
            Kernels.push_back(FD);
        return true;
    }

    CallArgs Calls;

  private:
    ASTContext &Ctx;
    const PrintingPolicy &Policy;
};

// What one function body holds: calls, __shared__ variables, inline asm.
struct BodyFacts {
    std::vector<std::pair<const FunctionDecl *, SourceLocation>> Calls;
    std::vector<const VarDecl *> Shared;
    std::vector<const AsmStmt *> Asms;
};

// Walks one function body for its BodyFacts.
class BodyWalker : public RecursiveASTVisitor<BodyWalker>, public BodyFacts {
  public:
    bool VisitCallExpr(CallExpr *CE) {
        if (const FunctionDecl *F = CE->getDirectCallee())
            Calls.push_back({F, CE->getBeginLoc()});
        return true;
    }
    bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
        const CXXConstructorDecl *Ctor = CE->getConstructor();
        if (Ctor && !Ctor->isTrivial() && Ctor->isUserProvided())
            Calls.push_back({Ctor, CE->getBeginLoc()});
        return true;
    }
    bool VisitVarDecl(VarDecl *VD) {
        // A generic lambda's pattern is no code: its instantiations, reached
        // as calls, hold the variables the code object allocates.
        if (VD->hasAttr<CUDASharedAttr>() && !VD->getDeclContext()->isDependentContext())
            Shared.push_back(VD);
        return true;
    }
    bool VisitAsmStmt(AsmStmt *S) {
        Asms.push_back(S);
        return true;
    }
};

const char *evalIntText(CaptureContext &C, const Expr *E) {
    if (!E)
        return nullptr;
    if (!E->isValueDependent()) {
        Expr::EvalResult R;
        if (E->EvaluateAsInt(R, C.ast()))
            return C.str(decimal(R.Val.getInt()));
    }
    return C.exprText(E);
}

// Each function's body is walked once per job, however many kernels reach it.
using BodyCache = std::unordered_map<const FunctionDecl *, BodyFacts>;
// Whether a function is a helper frame (1), a leaf (2) or neither (0), by
// canonical declaration, per job.
using HelperCache = std::unordered_map<const FunctionDecl *, int>;

// The patterns compiled in from annotations/calltree/.
struct CallPattern {
    const char *Glob;
};
// (each ends with a null pattern: a data file may be empty)
const CallPattern HelperPatterns[] = {
#include "kw_calltree_helpers.inc"
    {nullptr}};
const CallPattern LeafPatterns[] = {
#include "kw_calltree_leaves.inc"
    {nullptr}};

template <size_t N> std::vector<const char *> globs(const CallPattern (&P)[N]) {
    std::vector<const char *> V;
    for (const CallPattern &X : P)
        if (X.Glob)
            V.push_back(X.Glob);
    return V;
}

class KernelCapture {
  public:
    KernelCapture(CaptureContext &C, kw_kernel &K, int ExplicitArgs,
                  const std::map<unsigned, std::string> *Written, BodyCache &Bodies,
                  const CallArgs &Calls, HelperCache &HelperOf)
        : C(C), K(K), ExplicitArgs(ExplicitArgs), Written(Written), Bodies(Bodies),
          Calls(Calls), HelperOf(HelperOf) {}

    void fill(const FunctionDecl *FD) {
        K.symbol = kernelSymbolText(C, FD);
        K.name = C.printedName(FD);
        K.location = C.loc(FD->getLocation());
        // Internal linkage (anonymous namespace, static, a TU-local template
        // argument): another TU may have a different kernel of this symbol.
        if (!FD->isExternallyVisible())
            K.linkage = C.str("internal");
        if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate())
            K.template_name = C.str(T->getTemplatedDecl()->getQualifiedNameAsString());
        templateArgs(FD);
        captureParams(C, FD, K);
        doc(FD);
        attrs(FD);
        functor(FD);
        walk(FD, 1);
    }

  private:
    CaptureContext &C;
    kw_kernel &K;
    int ExplicitArgs; // -1: unknown
    const std::map<unsigned, std::string> *Written; // typedef names as written; may be null
    BodyCache &Bodies;
    const CallArgs &Calls; // the types references wrote, sugar kept
    HelperCache &HelperOf;
    std::set<const FunctionDecl *> Expanded;
    std::set<std::tuple<const FunctionDecl *, const FunctionDecl *, unsigned>> Edges;
    // (function, helper) pairs folded already; bodies whose facts are taken
    std::set<std::pair<const FunctionDecl *, const FunctionDecl *>> Hoisted;
    std::set<const FunctionDecl *> Walked;
    // A lambda's body is walked with the function it is written in and again
    // as its call operator: each variable is listed once.
    std::set<const VarDecl *> SharedSeen;

    void templateArgs(const FunctionDecl *FD) {
        const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
        const FunctionTemplateDecl *T = FD->getPrimaryTemplate();
        if (!Args || !T)
            return;
        const TemplateParameterList *Params = T->getTemplateParameters();
        for (unsigned I = 0; I < Args->size(); I++) {
            const TemplateArgument &A = Args->get(I);
            kw_template_arg *TA = KW_PUSH(C.arena(), K.template_args);
            if (!TA)
                return;
            if (I < Params->size() && !Params->getParam(I)->getName().empty())
                TA->name = C.str(Params->getParam(I)->getName());
            switch (A.getKind()) {
            case TemplateArgument::Type:
                TA->kind = "type";
                break;
            case TemplateArgument::Template:
            case TemplateArgument::TemplateExpansion:
                TA->kind = "template";
                break;
            case TemplateArgument::Pack:
                TA->kind = "pack";
                break;
            default:
                TA->kind = "value";
                break;
            }
            std::string V;
            llvm::raw_string_ostream OS(V);
            A.print(C.policy(), OS, /*IncludeType=*/false);
            TA->value = C.str(OS.str());
            if (Written) {
                auto W = Written->find(I);
                if (W != Written->end() && W->second != OS.str())
                    TA->written = C.str(W->second);
            }
            // An argument is defaulted when Clang says so, or when it was not
            // written at any reference and its parameter has a default.
            const NamedDecl *Param = I < Params->size() ? Params->getParam(I) : nullptr;
            bool HasDefault = false;
            if (const auto *TP = dyn_cast_or_null<TemplateTypeParmDecl>(Param))
                HasDefault = TP->hasDefaultArgument();
            else if (const auto *NP = dyn_cast_or_null<NonTypeTemplateParmDecl>(Param))
                HasDefault = NP->hasDefaultArgument();
            else if (const auto *TT = dyn_cast_or_null<TemplateTemplateParmDecl>(Param))
                HasDefault = TT->hasDefaultArgument();
            TA->defaulted = A.getIsDefaulted() ||
                            (HasDefault && ExplicitArgs >= 0 && (int)I >= ExplicitArgs);
        }
    }

    // A trampoline kernel calls operator() of an object whose type is one of
    // its template arguments (kentry<Kernel, Args> { Kernel{}(args); }), or
    // its body's one call is another member of such a type
    // (entry<Kernel> { Kernel::run(kargs); }): that type is the kernel the
    // user wrote, that member its device code.
    void functor(const FunctionDecl *FD) {
        const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
        const FunctionDecl *Def = nullptr;
        if (!Args || !FD->hasBody(Def) || !Def)
            return;
        std::map<const CXXRecordDecl *, std::pair<QualType, unsigned>> Candidates;
        for (unsigned I = 0; I < Args->size(); I++)
            if (Args->get(I).getKind() == TemplateArgument::Type)
                if (const CXXRecordDecl *R = Args->get(I).getAsType()->getAsCXXRecordDecl())
                    Candidates[R->getCanonicalDecl()] = {Args->get(I).getAsType(), I};
        if (Candidates.empty())
            return;
        BodyWalker W;
        W.TraverseStmt(Def->getBody());
        bool Only = W.Calls.size() == 1;
        for (auto &[Callee, Loc] : W.Calls) {
            const auto *M = dyn_cast<CXXMethodDecl>(Callee);
            if (!M || (M->getOverloadedOperator() != OO_Call &&
                       (!Only || isa<CXXConstructorDecl>(M) || isa<CXXDestructorDecl>(M))))
                continue;
            const CXXRecordDecl *R = M->getParent();
            auto It = R ? Candidates.find(R->getCanonicalDecl()) : Candidates.end();
            if (It == Candidates.end())
                continue;
            QualType T = It->second.first;
            K.functor = C.str(C.typeString(T));
            const FunctionDecl *MD = nullptr;
            M->hasBody(MD);
            K.functor_location = C.loc((MD ? MD : M)->getLocation());
            functorArgs(C, K, T, writtenArg(FD, It->second.second, T), &Calls);
            return;
        }
    }

    // The first type a reference to FD wrote for its argument I, sugar kept.
    QualType writtenArg(const FunctionDecl *FD, unsigned I, QualType Canon) const {
        auto F = Calls.Args.find(FD->getCanonicalDecl());
        if (F != Calls.Args.end())
            if (auto A = F->second.find(I); A != F->second.end())
                for (QualType Q : A->second)
                    if (C.ast().hasSameType(Q, Canon))
                        return Q;
        return QualType();
    }

    void doc(const FunctionDecl *FD) {
        const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
        if (!Pattern)
            Pattern = FD;
        if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate())
            Pattern = T->getTemplatedDecl();
        const RawComment *RC = C.ast().getRawCommentForAnyRedecl(Pattern);
        if (!RC)
            return;
        std::string Text = RC->getFormattedText(C.sm(), C.ast().getDiagnostics());
        if (!Text.empty())
            K.doc = C.str(Text);
    }

    void attr(const char *Name, const char *Value) {
        kw_attr *A = KW_PUSH(C.arena(), K.attrs);
        if (!A)
            return;
        A->name = Name;
        A->value = Value;
    }

    void attrs(const FunctionDecl *FD) {
        if (const auto *LB = FD->getAttr<CUDALaunchBoundsAttr>()) {
            std::string V = evalIntText(C, LB->getMaxThreads());
            if (LB->getMinBlocks())
                V += std::string(",") + evalIntText(C, LB->getMinBlocks());
            attr("launch_bounds", C.str(V));
        }
        if (const auto *FW = FD->getAttr<AMDGPUFlatWorkGroupSizeAttr>())
            attr("amdgpu_flat_work_group_size",
                 C.str(std::string(evalIntText(C, FW->getMin())) + "," +
                       evalIntText(C, FW->getMax())));
        if (const auto *WE = FD->getAttr<AMDGPUWavesPerEUAttr>()) {
            std::string V = evalIntText(C, WE->getMin());
            if (WE->getMax())
                V += std::string(",") + evalIntText(C, WE->getMax());
            attr("amdgpu_waves_per_eu", C.str(V));
        }
    }

    // FD's calls, helper frames folded: the calls of each helper FD reaches
    // (annotations/calltree/) are recorded as FD's own; then each callee is
    // walked in turn.
    void walk(const FunctionDecl *FD, int Depth) {
        if (!FD || Depth > 64 || !Expanded.insert(FD).second)
            return;
        const char *CallerSym = nullptr;
        std::vector<const FunctionDecl *> Next, Stack;
        if (!body(FD, FD, Depth, CallerSym, Next, Stack))
            return;
        for (const FunctionDecl *N : Next)
            walk(N, Depth + 1);
    }

    // The body of Holder (FD itself, or a helper FD reaches through Stack):
    // its __shared__ variables and inline asm (once per kernel), its calls as
    // FD's. False when out of memory.
    bool body(const FunctionDecl *FD, const FunctionDecl *Holder, int Depth,
              const char *&CallerSym, std::vector<const FunctionDecl *> &Next,
              std::vector<const FunctionDecl *> &Stack) {
        const FunctionDecl *Def = nullptr;
        if (!Holder->hasBody(Def) || !Def)
            return true;
        auto [Cached, New] = Bodies.try_emplace(Def);
        if (New) {
            BodyWalker W;
            W.TraverseStmt(Def->getBody());
            Cached->second = std::move(static_cast<BodyFacts &>(W));
        }
        const BodyFacts &W = Cached->second;
        if (Walked.insert(Holder).second && !bodyFacts(Holder, W))
            return false;
        for (auto &[Callee, Loc] : W.Calls) {
            if (Callee->getBuiltinID() != 0)
                continue;
            // A system-header callee (threadIdx accessors, __syncthreads) is
            // listed once per caller; a user callee once per call site.
            bool System = C.inSystemHeader(Callee->getLocation());
            if (!System && isHelper(Callee)) {
                if (Stack.size() < 64 && Hoisted.insert({FD, Callee}).second) {
                    Stack.push_back(Callee);
                    bool Ok = body(FD, Callee, Depth, CallerSym, Next, Stack);
                    Stack.pop_back();
                    if (!Ok)
                        return false;
                }
                continue;
            }
            unsigned Raw = System ? 0 : Loc.getRawEncoding();
            if (!Edges.insert({FD, Callee, Raw}).second)
                continue;
            if (!CallerSym)
                CallerSym = kernelSymbolText(C, FD);
            kw_call *Call = KW_PUSH(C.arena(), K.calls);
            if (!Call)
                return false;
            Call->caller = CallerSym;
            Call->name = C.printedName(Callee);
            Call->symbol = kernelSymbolText(C, Callee);
            Call->depth = Depth;
            const FunctionDecl *CalleeDef = nullptr;
            Callee->hasBody(CalleeDef);
            SourceLocation DefLoc = CalleeDef ? CalleeDef->getLocation() : Callee->getLocation();
            Call->system = C.inSystemHeader(DefLoc);
            Call->location = C.loc(Loc);
            Call->callee_location = C.loc(DefLoc);
            if (Call->system)
                continue;
            if (!isLeaf(Callee))
                Next.push_back(Callee);
            else if (!sealed(Callee))
                return false;
        }
        return true;
    }

    // A leaf (annotations/calltree/leaves.txt: a library's internals) is an
    // edge whose own calls are not recorded; the bodies it reaches still give
    // the kernel their __shared__ variables and inline asm.
    bool sealed(const FunctionDecl *Leaf) {
        std::vector<const FunctionDecl *> Work{Leaf};
        std::set<const FunctionDecl *> Seen{Leaf};
        while (!Work.empty()) {
            const FunctionDecl *F = Work.back();
            Work.pop_back();
            const FunctionDecl *Def = nullptr;
            if (!F->hasBody(Def) || !Def)
                continue;
            auto [Cached, New] = Bodies.try_emplace(Def);
            if (New) {
                BodyWalker W;
                W.TraverseStmt(Def->getBody());
                Cached->second = std::move(static_cast<BodyFacts &>(W));
            }
            const BodyFacts &W = Cached->second;
            if (Walked.insert(F).second && !bodyFacts(F, W))
                return false;
            for (auto &[Callee, Loc] : W.Calls)
                if (Callee->getBuiltinID() == 0 && !C.inSystemHeader(Callee->getLocation()) &&
                    Seen.insert(Callee).second && Seen.size() < 100000)
                    Work.push_back(Callee);
        }
        return true;
    }

    bool bodyFacts(const FunctionDecl *Holder, const BodyFacts &W) {
        const char *Func = C.printedName(Holder);
        for (const VarDecl *V : W.Shared) {
            if (!SharedSeen.insert(V).second)
                continue;
            kw_shared_var *S = KW_PUSH(C.arena(), K.shared);
            if (!S)
                return false;
            S->name = C.str(V->getName());
            S->type = C.str(C.typeString(V->getType()));
            QualType T = V->getType();
            S->bytes = (!T->isIncompleteType() && !T->isDependentType())
                           ? (long long)C.ast().getTypeSizeInChars(T).getQuantity()
                           : -1;
            S->function = Func;
            S->location = C.loc(V->getLocation());
        }
        for (const AsmStmt *A : W.Asms) {
            kw_inline_asm *I = KW_PUSH(C.arena(), K.inline_asm);
            if (!I)
                return false;
            if (const auto *G = dyn_cast<GCCAsmStmt>(A))
                I->text = C.str(asmText(G->getAsmString()));
            else
                I->text = C.str(A->generateAsmString(C.ast()));
            I->function = Func;
            I->location = C.loc(A->getAsmLoc());
        }
        return true;
    }

    // Whether FD is a helper frame (annotations/calltree/helpers.txt) or a
    // leaf (leaves.txt), by its printed name without template arguments;
    // cached per job.
    bool isHelper(const FunctionDecl *FD) { return kindOf(FD) == 1; }
    bool isLeaf(const FunctionDecl *FD) { return kindOf(FD) == 2; }
    int kindOf(const FunctionDecl *FD) {
        auto [It, New] = HelperOf.try_emplace(FD->getCanonicalDecl(), 0);
        if (New) {
            const char *Name = C.printedName(FD);
            std::string Plain(std::strlen(Name) + 1, '\0');
            Plain.resize(kw_call_graph_plain(Name, &Plain[0]));
            static const std::vector<const char *> H = globs(HelperPatterns),
                                                   L = globs(LeafPatterns);
            It->second = kw_call_graph_helper(H.data(), H.size(), Plain.c_str())   ? 1
                         : kw_call_graph_helper(L.data(), L.size(), Plain.c_str()) ? 2
                                                                                     : 0;
        }
        return It->second;
    }
};

} // namespace

std::string writtenTypeName(ASTContext &Ctx, QualType T, const PrintingPolicy &Policy,
                            const CallArgs *Calls) {
    return writtenTypeNameIn(Ctx, T, Policy, 0, Calls);
}

QualType callerWritten(ASTContext &Ctx, const CallArgs *Calls,
                       const SubstTemplateTypeParmType *ST) {
    if (!Calls || !ST)
        return QualType();
    return Calls->written(Ctx, ST->getAssociatedDecl(), ST->getIndex(),
                         Ctx.getCanonicalType(QualType(ST, 0)));
}

void captureKernels(CaptureContext &C, const char *Arch, const std::set<std::string> &Emitted,
                    bool HaveEmitted) {
    KernelFinder F(C.ast(), C.policy());
    F.TraverseDecl(C.ast().getTranslationUnitDecl());
    F.resolveWritten();
    std::set<std::string> Seen;
    BodyCache Bodies;
    HelperCache HelperOf;
    for (const FunctionDecl *FD : F.Kernels) {
        std::string Sym = kernelSymbolText(C, FD);
        if (HaveEmitted && !Emitted.count(Sym))
            continue;
        if (!Seen.insert(Sym).second)
            continue;
        kw_kernel *K = KW_PUSH(C.arena(), C.doc().kernels);
        if (!K)
            return;
        auto It = F.ExplicitArgs.find(FD->getCanonicalDecl());
        auto W = F.Written.find(FD->getCanonicalDecl());
        KernelCapture(C, *K, It == F.ExplicitArgs.end() ? -1 : (int)It->second,
                      W == F.Written.end() ? nullptr : &W->second, Bodies, F.Calls, HelperOf)
            .fill(FD);
        kw_kernel_arch *A = KW_PUSH(C.arena(), K->archs);
        if (A) {
            kw_kernel_arch_init(A);
            A->arch = C.str(Arch);
        }
    }
}

} // namespace kwalk
