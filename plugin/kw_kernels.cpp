// kw_kernels.cpp: the device-job visitors: kernels, their template
// arguments, and what their bodies reach (calls, __shared__, inline asm).
#include "kw_kernels.h"

#include "kw_compat.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/GlobalDecl.h"
#include "clang/AST/RawCommentList.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
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

namespace {

class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
  public:
    std::vector<const FunctionDecl *> Kernels;
    // Fewest template arguments written explicitly at any reference to a kernel
    // specialization: arguments past that count were deduced or defaulted.
    std::map<const FunctionDecl *, unsigned> ExplicitArgs;
    bool shouldVisitTemplateInstantiations() const { return true; }
    bool VisitDeclRefExpr(DeclRefExpr *DRE) {
        const auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl());
        if (!FD || !FD->hasAttr<CUDAGlobalAttr>() || !FD->getPrimaryTemplate())
            return true;
        unsigned N = DRE->getNumTemplateArgs();
        auto It = ExplicitArgs.find(FD->getCanonicalDecl());
        if (It == ExplicitArgs.end())
            ExplicitArgs[FD->getCanonicalDecl()] = N;
        else if (N < It->second)
            It->second = N;
        return true;
    }
    bool VisitFunctionDecl(FunctionDecl *FD) {
        if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody() &&
            !FD->isDependentContext())
            Kernels.push_back(FD);
        return true;
    }
};

// Walks one function body for calls, __shared__ variables and inline asm.
class BodyWalker : public RecursiveASTVisitor<BodyWalker> {
  public:
    std::vector<std::pair<const FunctionDecl *, SourceLocation>> Calls;
    std::vector<const VarDecl *> Shared;
    std::vector<const AsmStmt *> Asms;

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

class KernelCapture {
  public:
    KernelCapture(CaptureContext &C, kw_kernel &K, int ExplicitArgs)
        : C(C), K(K), ExplicitArgs(ExplicitArgs) {}

    void fill(const FunctionDecl *FD) {
        K.symbol = C.str(kernelSymbol(C.ast(), FD));
        K.name = C.printedName(FD);
        K.location = C.loc(FD->getLocation());
        if (const FunctionTemplateDecl *T = FD->getPrimaryTemplate())
            K.template_name = C.str(T->getTemplatedDecl()->getQualifiedNameAsString());
        templateArgs(FD);
        for (const ParmVarDecl *P : FD->parameters()) {
            kw_param *Param = KW_PUSH(C.arena(), K.params);
            if (!Param)
                return;
            Param->name = C.str(P->getName());
            Param->type = C.str(C.typeString(P->getType()));
        }
        doc(FD);
        attrs(FD);
        functor(FD);
        walk(FD, 1);
    }

  private:
    CaptureContext &C;
    kw_kernel &K;
    int ExplicitArgs; // -1: unknown
    std::set<const FunctionDecl *> Expanded;
    std::set<std::tuple<const FunctionDecl *, const FunctionDecl *, unsigned>> Edges;
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
    // its template arguments (kentry<Kernel, Args> { Kernel{}(args); }): that
    // type is the kernel the user wrote.
    void functor(const FunctionDecl *FD) {
        const TemplateArgumentList *Args = FD->getTemplateSpecializationArgs();
        const FunctionDecl *Def = nullptr;
        if (!Args || !FD->hasBody(Def) || !Def)
            return;
        std::map<const CXXRecordDecl *, QualType> Candidates;
        for (const TemplateArgument &A : Args->asArray())
            if (A.getKind() == TemplateArgument::Type)
                if (const CXXRecordDecl *R = A.getAsType()->getAsCXXRecordDecl())
                    Candidates[R->getCanonicalDecl()] = A.getAsType();
        if (Candidates.empty())
            return;
        BodyWalker W;
        W.TraverseStmt(Def->getBody());
        for (auto &[Callee, Loc] : W.Calls) {
            const auto *M = dyn_cast<CXXMethodDecl>(Callee);
            if (!M || M->getOverloadedOperator() != OO_Call)
                continue;
            const CXXRecordDecl *R = M->getParent();
            auto It = R ? Candidates.find(R->getCanonicalDecl()) : Candidates.end();
            if (It == Candidates.end())
                continue;
            K.functor = C.str(C.typeString(It->second));
            const FunctionDecl *MD = nullptr;
            M->hasBody(MD);
            K.functor_location = C.loc((MD ? MD : M)->getLocation());
            return;
        }
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

    void walk(const FunctionDecl *FD, int Depth) {
        if (!FD || Depth > 64 || !Expanded.insert(FD).second)
            return;
        const FunctionDecl *Def = nullptr;
        if (!FD->hasBody(Def) || !Def)
            return;
        BodyWalker W;
        W.TraverseStmt(Def->getBody());
        const char *Func = C.printedName(FD);
        const char *CallerSym = nullptr;
        for (const VarDecl *V : W.Shared) {
            if (!SharedSeen.insert(V).second)
                continue;
            kw_shared_var *S = KW_PUSH(C.arena(), K.shared);
            if (!S)
                return;
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
                return;
            if (const auto *G = dyn_cast<GCCAsmStmt>(A))
                I->text = C.str(asmText(G->getAsmString()));
            else
                I->text = C.str(A->generateAsmString(C.ast()));
            I->function = Func;
            I->location = C.loc(A->getAsmLoc());
        }
        std::vector<const FunctionDecl *> Next;
        for (auto &[Callee, Loc] : W.Calls) {
            if (Callee->getBuiltinID() != 0)
                continue;
            // A system-header callee (threadIdx accessors, __syncthreads) is
            // listed once per caller; a user callee once per call site.
            bool System = C.inSystemHeader(Callee->getLocation());
            unsigned Raw = System ? 0 : Loc.getRawEncoding();
            if (!Edges.insert({FD, Callee, Raw}).second)
                continue;
            if (!CallerSym)
                CallerSym = C.str(kernelSymbolOrName(FD));
            kw_call *Call = KW_PUSH(C.arena(), K.calls);
            if (!Call)
                return;
            Call->caller = CallerSym;
            Call->name = C.printedName(Callee);
            Call->symbol = C.str(kernelSymbolOrName(Callee));
            Call->depth = Depth;
            const FunctionDecl *CalleeDef = nullptr;
            Callee->hasBody(CalleeDef);
            SourceLocation DefLoc = CalleeDef ? CalleeDef->getLocation() : Callee->getLocation();
            Call->system = C.inSystemHeader(DefLoc);
            Call->location = C.loc(Loc);
            Call->callee_location = C.loc(DefLoc);
            if (!Call->system)
                Next.push_back(Callee);
        }
        for (const FunctionDecl *N : Next)
            walk(N, Depth + 1);
    }

    std::string kernelSymbolOrName(const FunctionDecl *FD) {
        return kernelSymbol(C.ast(), FD);
    }
};

} // namespace

void captureKernels(CaptureContext &C, const char *Arch, const std::set<std::string> &Emitted,
                    bool HaveEmitted) {
    KernelFinder F;
    F.TraverseDecl(C.ast().getTranslationUnitDecl());
    std::set<std::string> Seen;
    for (const FunctionDecl *FD : F.Kernels) {
        std::string Sym = kernelSymbol(C.ast(), FD);
        if (HaveEmitted && !Emitted.count(Sym))
            continue;
        if (!Seen.insert(Sym).second)
            continue;
        kw_kernel *K = KW_PUSH(C.arena(), C.doc().kernels);
        if (!K)
            return;
        auto It = F.ExplicitArgs.find(FD->getCanonicalDecl());
        KernelCapture(C, *K, It == F.ExplicitArgs.end() ? -1 : (int)It->second).fill(FD);
        kw_kernel_arch *A = KW_PUSH(C.arena(), K->archs);
        if (A) {
            kw_kernel_arch_init(A);
            A->arch = C.str(Arch);
        }
    }
}

} // namespace kwalk
