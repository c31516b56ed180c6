// kw_params.cpp: a kernel's parameters as the sidecar records them. Two
// shapes of ck_tile kernel need more than the declaration's names:
//   - a parameter pack (`kentry(Args... args)`): every element is a parameter
//     named `args`; each is named by its position ("args#0") and, where the
//     kernel forwards the pack one to one into a call (`Kernel{}(args...)`),
//     by the callee's parameter it becomes (`kargs`, `p_x`);
//   - a struct passed by value (GemmKernel's `kargs`): its scalar fields, with
//     their byte offsets, are what the kernel reads from the kernel-argument
//     segment, so they are recorded as the parameter's fields ("kargs.p_a").
#include "kw_params.h"

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecordLayout.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <string>
#include <vector>

using namespace clang;

namespace kwalk {

namespace {

enum { MaxFields = 128, MaxDepth = 4 };

// The parameter an argument expression names, through implicit casts and a
// copy of a struct (CXXConstructExpr of one argument).
const ParmVarDecl *namedParam(const Expr *E) {
    for (int I = 0; E && I < 4; I++) {
        E = E->IgnoreImplicit();
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E)) {
            E = CE->getNumArgs() == 1 ? CE->getArg(0) : nullptr;
            continue;
        }
        if (const auto *DR = dyn_cast<DeclRefExpr>(E))
            return dyn_cast<ParmVarDecl>(DR->getDecl());
        return nullptr;
    }
    return nullptr;
}

// The first call in a body whose arguments are the parameters First..First+N-1
// of FD in order: the callee's parameter names for them.
class Forwarding : public RecursiveASTVisitor<Forwarding> {
  public:
    Forwarding(const FunctionDecl *FD, unsigned First, unsigned N) : FD(FD), First(First), N(N) {}
    std::vector<std::string> Names;

    bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *Callee = CE->getDirectCallee();
        if (!Names.empty() || !Callee)
            return true;
        // an operator() called on an object: the object is argument 0
        unsigned Skip = isa<CXXOperatorCallExpr>(CE) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
        if (CE->getNumArgs() != N + Skip || Callee->getNumParams() != N)
            return true;
        for (unsigned I = 0; I < N; I++) {
            const ParmVarDecl *P = namedParam(CE->getArg(I + Skip));
            if (!P || First + I >= FD->getNumParams() || P != FD->getParamDecl(First + I))
                return true;
        }
        for (unsigned I = 0; I < N; I++) {
            const ParmVarDecl *CP = Callee->getParamDecl(I);
            Names.push_back(CP->getName().empty() ? std::string() : CP->getName().str());
        }
        return true;
    }

  private:
    const FunctionDecl *FD;
    unsigned First, N;
};

void fieldsOf(CaptureContext &C, const RecordDecl *RD, const std::string &Prefix, long long Base,
              int Depth, kw_param &P) {
    if (!RD || !(RD = RD->getDefinition()) || RD->isInvalidDecl() || RD->isDependentType() ||
        Depth > MaxDepth)
        return;
    const ASTRecordLayout &L = C.ast().getASTRecordLayout(RD);
    if (const auto *CR = dyn_cast<CXXRecordDecl>(RD))
        for (const CXXBaseSpecifier &B : CR->bases()) {
            const CXXRecordDecl *BD = B.getType()->getAsCXXRecordDecl();
            if (BD && !B.isVirtual())
                fieldsOf(C, BD, Prefix, Base + L.getBaseClassOffset(BD).getQuantity(), Depth + 1,
                         P);
        }
    for (const FieldDecl *F : RD->fields()) {
        if (P.fields.n >= MaxFields)
            return;
        if (F->isBitField() || F->getName().empty())
            continue;
        long long Off = Base + (long long)(L.getFieldOffset(F->getFieldIndex()) / 8);
        std::string Name = Prefix + "." + F->getName().str();
        QualType T = F->getType();
        if (const RecordDecl *Sub = T->getAsRecordDecl()) {
            fieldsOf(C, Sub, Name, Off, Depth + 1, P);
            continue;
        }
        kw_param_field *PF = KW_PUSH(C.arena(), P.fields);
        if (!PF)
            return;
        PF->name = C.str(Name);
        PF->type = C.str(C.typeString(T));
        PF->offset = Off;
    }
}

// The position of FD's pack in its pattern's parameters and how many
// parameters it became; false when the function has no pack.
bool packRange(const FunctionDecl *FD, unsigned &First, unsigned &N, std::string &Name) {
    const FunctionDecl *Pattern = FD->getTemplateInstantiationPattern();
    if (!Pattern)
        return false;
    unsigned NP = Pattern->getNumParams();
    for (unsigned I = 0; I < NP; I++) {
        const ParmVarDecl *PP = Pattern->getParamDecl(I);
        if (!PP->isParameterPack())
            continue;
        if (FD->getNumParams() + 1 < NP)
            return false;
        First = I;
        N = FD->getNumParams() - (NP - 1);
        Name = PP->getName().str();
        return true;
    }
    return false;
}

} // namespace

void captureParams(CaptureContext &C, const FunctionDecl *FD, kw_kernel &K) {
    unsigned First = 0, N = 0;
    std::string Pack;
    bool HasPack = packRange(FD, First, N, Pack) && N;
    std::vector<std::string> Forwarded;
    const FunctionDecl *Def = nullptr;
    if (HasPack && FD->hasBody(Def) && Def) {
        Forwarding W(FD, First, N);
        W.TraverseStmt(Def->getBody());
        Forwarded = std::move(W.Names);
    }
    for (unsigned I = 0; I < FD->getNumParams(); I++) {
        const ParmVarDecl *PD = FD->getParamDecl(I);
        kw_param *P = KW_PUSH(C.arena(), K.params);
        if (!P)
            return;
        std::string Name = PD->getName().str();
        if (HasPack && I >= First && I < First + N) {
            std::string Pos = (Pack.empty() ? std::string("args") : Pack) + "#" +
                              std::to_string(I - First);
            P->pack = C.str(Pos);
            const std::string &F = I - First < Forwarded.size() ? Forwarded[I - First] : "";
            Name = F.empty() ? Pos : F;
        }
        P->name = C.str(Name);
        P->type = C.str(C.typeString(PD->getType()));
        QualType T = PD->getType();
        if (!T->isDependentType() && !T->isReferenceType() && !T->isPointerType())
            if (const RecordDecl *RD = T->getAsRecordDecl())
                fieldsOf(C, RD, Name, 0, 0, *P);
    }
}

} // namespace kwalk
