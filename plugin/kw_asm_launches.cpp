// kw_asm_launches.cpp: launches of precompiled ASM kernels (.co code objects
// with no source), the two ways aiter writes them: a loader class
// (annotations/loaders/: constructed with the kernel's name and code-object
// path, then obj.launch_kernel({args, sizes, gdx, gdy, gdz, bdx, bdy, bdz,
// stream})) and hipModuleLoad / hipModuleGetFunction / hipModuleLaunchKernel.
// The kernel name and code object are recorded when they are literals or
// built from literals; grid and block with their constant values.
//
// A loader launch may go through a pointer, reference or smart pointer to
// an object made elsewhere: a cache's get_or_create(key, [&] { return
// Loader(name, co); }), new, make_unique, an assignment anywhere in the TU
// (kw_asm_tables.cpp finds the constructions). When the constructor's name
// and path are fields of a constant table's row picked by a lookup
// (`cfg = table.find(key)->second; Loader(cfg.name.c_str(), ...)`), every
// row of the table is a possible (kernel, code object): recorded as the
// launch's asm_choices, each with the condition that selects it. A loader
// built inside a wrapper from the wrapper's parameters (aiter's FMoeKernel:
// `kernel(name, hsaco)`, launched inside the class) is followed to the
// wrapper's calls: each is a choice naming the wrapper, from a table's rows
// or from literals (then per arch whose hsa/<arch>/ holds the code object,
// under the conditions of the call).
//
// A module launch's hipFunction_t may be set anywhere in the TU: a local of
// the launching function, a static local set inside a lambda (call_once), a
// global set by a static initializer, a class member set by the constructor.
// Every hipModuleGetFunction / hipModuleLoad call of the TU is indexed by the
// variable or member it assigns (AsmModules, built on first use); the launch
// follows its handle to the GetFunction calls assigning it, and their module
// to the Load calls assigning that. When they disagree (the same handle set
// to two kernels), nothing is recorded.
#include "kw_guards.h"
#include "kw_host_internal.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include "kw_asm_tables.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <string>

using namespace clang;

namespace kwalk {

namespace {

struct LoaderSpec {
    const char *Class;
    const char *NameArg, *PathArg;
    const char *Method;
    const char *ArgsArg;
    const char *GridFields, *BlockFields;
    const char *StreamField; // "-": the struct has none
    const char *CoDir;       // "-": the path is the file; else a directory ({arch})
};
const LoaderSpec Loaders[] = {
#include "kw_loaders.inc"
};

const LoaderSpec *loaderFor(const CXXRecordDecl *R) {
    if (!R || !R->getIdentifier())
        return nullptr;
    for (const LoaderSpec &L : Loaders)
        if (R->getName() == L.Class)
            return &L;
    return nullptr;
}

// The loader class R is or derives from (its launch method may be a base
// class's, brought in by `using Base::launch_kernel`), and that class.
const LoaderSpec *loaderOf(const CXXRecordDecl *R, const CXXRecordDecl **Class = nullptr,
                           int Depth = 0) {
    if (!R || Depth > 8)
        return nullptr;
    if (const LoaderSpec *L = loaderFor(R)) {
        if (Class)
            *Class = R;
        return L;
    }
    if (!R->hasDefinition())
        return nullptr;
    for (const CXXBaseSpecifier &B : R->getDefinition()->bases())
        if (const LoaderSpec *L = loaderOf(B.getType()->getAsCXXRecordDecl(), Class, Depth + 1))
            return L;
    return nullptr;
}

// A call of a loader's launch method, on the loader object (by value,
// reference or pointer) or on an object of a class deriving from it.
const LoaderSpec *loaderCall(const CallExpr *CE, const CXXRecordDecl **Class = nullptr) {
    const auto *MC = dyn_cast<CXXMemberCallExpr>(CE);
    const CXXMethodDecl *M = MC ? MC->getMethodDecl() : nullptr;
    if (!M || !M->getIdentifier())
        return nullptr;
    // the object's own class: the implicit object argument converted to the
    // method's class (a base) is seen through
    const CXXRecordDecl *Obj = nullptr;
    if (const Expr *O = MC->getImplicitObjectArgument()) {
        QualType T = O->IgnoreParenImpCasts()->getType();
        if (T->isAnyPointerType())
            T = T->getPointeeType();
        Obj = T->getAsCXXRecordDecl();
    }
    const LoaderSpec *L = loaderOf(Obj, Class);
    if (!L)
        L = loaderOf(M->getParent(), Class);
    return L && M->getName() == L->Method ? L : nullptr;
}

// The bases of every loader class of the TU: their methods are the loader's
// own business too (aiter's AiterAsmKernel launches through its private base
// AiterAsmKernelFast).
class LoaderBases : public RecursiveASTVisitor<LoaderBases> {
  public:
    std::set<const CXXRecordDecl *> Bases;
    bool VisitCXXRecordDecl(CXXRecordDecl *R) {
        if (R->isThisDeclarationADefinition() && loaderFor(R))
            add(R, 0);
        return true;
    }

  private:
    void add(const CXXRecordDecl *R, int Depth) {
        if (!R || Depth > 8 || !R->hasDefinition())
            return;
        for (const CXXBaseSpecifier &B : R->getDefinition()->bases())
            if (const CXXRecordDecl *BR = B.getType()->getAsCXXRecordDecl()) {
                Bases.insert(BR->getCanonicalDecl());
                add(BR, Depth + 1);
            }
    }
};

bool isModuleLaunch(const CallExpr *CE) {
    const FunctionDecl *F = CE->getDirectCallee();
    return F && F->getIdentifier() && F->getName() == "hipModuleLaunchKernel" &&
           CE->getNumArgs() >= 9;
}

// The text of a string built from literals: literal pieces joined, any other
// piece as ${expr}; NULL when nothing in it is a literal.
void stringPieces(CaptureContext &C, const Expr *E, std::string &Out, bool &AnyLiteral,
                  int Depth = 0) {
    if (!E || Depth > 16)
        return;
    E = E->IgnoreParenImpCasts();
    if (const auto *SL = dyn_cast<StringLiteral>(E)) {
        if (SL->getCharByteWidth() == 1) {
            Out += SL->getString().str();
            AnyLiteral = true;
            return;
        }
    }
    if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E))
        return stringPieces(C, BT->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E))
        return stringPieces(C, MT->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(E))
        return stringPieces(C, FC->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *CC = dyn_cast<CXXConstructExpr>(E); CC && CC->getNumArgs() >= 1 &&
                                                          !isa<CXXDefaultArgExpr>(CC->getArg(0)))
        return stringPieces(C, CC->getArg(0), Out, AnyLiteral, Depth + 1);
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(E);
        OC && OC->getOperator() == OO_Plus && OC->getNumArgs() == 2) {
        stringPieces(C, OC->getArg(0), Out, AnyLiteral, Depth + 1);
        stringPieces(C, OC->getArg(1), Out, AnyLiteral, Depth + 1);
        return;
    }
    if (const auto *EW = dyn_cast<ExprWithCleanups>(E))
        return stringPieces(C, EW->getSubExpr(), Out, AnyLiteral, Depth + 1);
    if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E)) // s.c_str(), s.data()
        if (const CXXMethodDecl *M = MC->getMethodDecl();
            M && M->getIdentifier() && (M->getName() == "c_str" || M->getName() == "data"))
            return stringPieces(C, MC->getImplicitObjectArgument(), Out, AnyLiteral, Depth + 1);
    // a constant named for it: `constexpr char kName[] = "k";`,
    // `const std::string path = std::string(DIR) + "k.co";`
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
        if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl());
            VD && !isa<ParmVarDecl>(VD) && (VD->isConstexpr() || VD->getType().isConstQualified()))
            if (const Expr *Init = VD->getAnyInitializer())
                return stringPieces(C, Init, Out, AnyLiteral, Depth + 1);
    Out += "${" + C.exprString(E) + "}";
}

const char *stringText(CaptureContext &C, const Expr *E) {
    std::string S;
    bool Any = false;
    stringPieces(C, E, S, Any);
    return Any ? C.str(S) : nullptr;
}

// The field initializers of the launch's argument struct, by field name.
const InitListExpr *argsInit(const Expr *E) {
    for (int Steps = 0; E && Steps < 8; Steps++) {
        E = E->IgnoreImplicit();
        if (const auto *IL = dyn_cast<InitListExpr>(E))
            return IL->isSemanticForm() ? IL : IL->getSemanticForm();
        if (const auto *CE = dyn_cast<CXXConstructExpr>(E); CE && CE->getNumArgs() == 1)
            E = CE->getArg(0);
        else
            return nullptr;
    }
    return nullptr;
}

const Expr *fieldInit(const InitListExpr *IL, llvm::StringRef Name) {
    const RecordDecl *RD = IL->getType()->getAsRecordDecl();
    if (!RD)
        return nullptr;
    unsigned I = 0;
    for (const FieldDecl *F : RD->fields()) {
        if (F->getName() == Name)
            return I < IL->getNumInits() ? IL->getInit(I) : nullptr;
        I++;
    }
    return nullptr;
}

void dims(CaptureContext &C, kw_config_item &Item, const Expr *X, const Expr *Y, const Expr *Z,
          const FunctionDecl *Enclosing) {
    Item.dims = 3;
    const Expr *E[3] = {X, Y, Z};
    std::string Text;
    bool All = true;
    for (int I = 0; I < 3; I++) {
        if (I)
            Text += ", ";
        Text += E[I] ? C.exprString(E[I]) : "?";
        All = All && E[I] && evalInt(C, E[I], Enclosing, Item.value[I]);
    }
    Item.expr = C.str(Text);
    Item.has_value = All;
}

std::vector<std::string> splitFields(const char *S) {
    std::vector<std::string> Out;
    std::string Cur;
    for (const char *P = S; *P; P++) {
        if (*P == ',') {
            Out.push_back(Cur);
            Cur.clear();
        } else {
            Cur += *P;
        }
    }
    Out.push_back(Cur);
    return Out;
}

// Every hipModuleGetFunction(&f, module, "name") and hipModuleLoad(&module,
// "x.co") call of the TU (function bodies, lambdas, constructors, variable
// initializers), by the handle its first argument assigns.
class ModuleIndexer : public RecursiveASTVisitor<ModuleIndexer> {
  public:
    explicit ModuleIndexer(AsmModules &M) : M(M) {}
    bool shouldVisitTemplateInstantiations() const {
        return true;
    }
    bool VisitCallExpr(CallExpr *CE) {
        const FunctionDecl *F = CE->getDirectCallee();
        if (!F || !F->getIdentifier() || CE->getNumArgs() < 2)
            return true;
        const Decl *D = handleDecl(CE->getArg(0));
        if (!D)
            return true;
        if (F->getName() == "hipModuleGetFunction" && CE->getNumArgs() >= 3)
            M.GetFunction[D].push_back(CE);
        else if (F->getName() == "hipModuleLoad")
            M.Load[D].push_back(CE);
        return true;
    }

  private:
    AsmModules &M;
};

// Fold one more assignment's text into the agreed one: Agree stays true while
// every assignment gives the same text (a literal or built from literals).
void agree(const char *&Text, bool &Agree, const char *Next) {
    if (!Next || (Text && strcmp(Text, Next)))
        Agree = false;
    else
        Text = Next;
}

void recordModuleLaunch(CaptureContext &C, kw_launch &L, const CallExpr *CE,
                        const FunctionDecl *Enclosing, AsmModules &M) {
    L.kind = "hipModuleLaunchKernel";
    dims(C, L.grid, CE->getArg(1), CE->getArg(2), CE->getArg(3), Enclosing);
    dims(C, L.block, CE->getArg(4), CE->getArg(5), CE->getArg(6), Enclosing);
    L.shared_mem.dims = 1;
    L.shared_mem.expr = C.exprText(CE->getArg(7));
    L.shared_mem.has_value = evalInt(C, CE->getArg(7), Enclosing, L.shared_mem.value[0]);
    L.stream.expr = C.exprText(CE->getArg(8));
    const Decl *Fn = handleDecl(CE->getArg(0));
    if (!Fn)
        return;
    if (!M.Built) {
        ModuleIndexer(M).TraverseDecl(C.ast().getTranslationUnitDecl());
        M.Built = true;
    }
    auto G = M.GetFunction.find(Fn);
    if (G == M.GetFunction.end())
        return;
    const char *Kernel = nullptr, *Path = nullptr;
    bool KernelAgrees = true, PathAgrees = true, AnyLoad = false;
    for (const CallExpr *Get : G->second) {
        agree(Kernel, KernelAgrees, stringText(C, Get->getArg(2)));
        auto Loads = M.Load.find(handleDecl(Get->getArg(1)));
        if (Loads == M.Load.end()) {
            PathAgrees = false;
            continue;
        }
        for (const CallExpr *Load : Loads->second) {
            agree(Path, PathAgrees, stringText(C, Load->getArg(1)));
            AnyLoad = true;
        }
    }
    if (KernelAgrees)
        L.asm_kernel = Kernel;
    if (PathAgrees && AnyLoad)
        L.code_object = Path;
}

// A string argument's text: literal pieces joined, other pieces as ${expr};
// an integer constant as its value.
std::string valueText(CaptureContext &C, const Expr *E) {
    if (!E)
        return "?";
    if (const char *S = stringText(C, E))
        return strchr(S, '$') ? std::string(S) : "\"" + std::string(S) + "\"";
    Expr::EvalResult R;
    if (!E->isValueDependent() && E->EvaluateAsInt(R, C.ast()))
        return std::to_string(R.Val.getInt().getExtValue());
    return C.exprString(E);
}

bool isArchName(const char *S) {
    if (!S || strncmp(S, "gfx", 3) || !S[3])
        return false;
    for (const char *P = S + 3; *P; P++)
        if (!isalnum((unsigned char)*P))
            return false;
    return true;
}

// The code object on disk: the path itself (CoDir "-"), or CoDir with {arch}
// replaced, under the launching file's directory or one of its ancestors.
const char *findCodeObject(CaptureContext &C, const LoaderSpec &Spec, const char *Path,
                           const char *Arch, const char *FromFile) {
    if (!Path || strchr(Path, '$'))
        return nullptr;
    if (!strcmp(Spec.CoDir, "-"))
        return llvm::sys::fs::exists(Path) ? Path : nullptr;
    std::string Dir = Spec.CoDir;
    size_t A = Dir.find("{arch}");
    if (A != std::string::npos) {
        if (!Arch)
            return nullptr;
        Dir.replace(A, 6, Arch);
    }
    llvm::SmallString<256> Up(FromFile ? FromFile : "");
    llvm::sys::path::remove_filename(Up);
    for (int Level = 0; Level < 8 && !Up.empty(); Level++) {
        llvm::SmallString<256> P(Up);
        llvm::sys::path::append(P, Dir, Path);
        if (llvm::sys::fs::exists(P))
            return C.str(P.str());
        size_t Parent = llvm::sys::path::parent_path(Up).size();
        if (Parent == 0 || Parent >= Up.size())
            break;
        Up.resize(Parent);
    }
    return nullptr;
}

// The rows a construction whose name / path arguments are table fields can
// pick, as one choice of the launch.
void tableChoice(CaptureContext &C, kw_launch &L, const LoaderConstruction &K, const Expr *NameE,
                 const Expr *PathE, const TableField &N, bool NT, const TableField &P, bool PT,
                 const LoaderSpec &Spec) {
    const TableField &T = NT ? N : P;
    if (NT && PT && N.Table != P.Table)
        return; // two tables: which rows go together is not known
    size_t Total = 0;
    std::vector<TableRow> Rows = tableRows(T.Table, KW_ASM_CANDIDATES_MAX, Total);
    if (Rows.empty())
        return;
    kw_asm_choice *Ch = KW_PUSH(C.arena(), L.asm_choices);
    if (!Ch)
        return;
    Ch->construction = C.loc(K.At->getBeginLoc());
    Ch->table = C.str(T.Table->getName());
    Ch->table_location = C.loc(T.Table->getLocation());
    if (T.Lookup)
        Ch->lookup = C.exprText(T.Lookup);
    Ch->rows = (int)Total;
    const char *Fixed[2] = {NT ? nullptr : stringText(C, NameE),
                            PT ? nullptr : stringText(C, PathE)};
    for (size_t Index = 0; Index < Rows.size(); Index++) {
        const TableRow &R = Rows[Index];
        kw_asm_candidate *Cd = KW_PUSH(C.arena(), Ch->candidates);
        if (!Cd)
            return;
        Cd->asm_kernel = NT ? stringText(C, rowField(R, N.Field, N.Key)) : Fixed[0];
        Cd->code_object = PT ? stringText(C, rowField(R, P.Field, P.Key)) : Fixed[1];
        Cd->location = C.loc(R.Value->getBeginLoc());
        if (T.Lookup)
            Cd->condition = C.str(C.exprString(T.Lookup) +
                                  " == " + (R.Key ? valueText(C, R.Key) : std::to_string(Index)));
        std::string Fields;
        const RecordDecl *RD = R.Value->getType()->getAsRecordDecl();
        if (!RD)
            continue;
        unsigned I = 0;
        for (const FieldDecl *F : RD->fields()) {
            const Expr *Init = I < R.Value->getNumInits() ? R.Value->getInit(I) : nullptr;
            I++;
            if (!Init || (NT && !N.Key && F->getName() == N.Field) ||
                (PT && !P.Key && F->getName() == P.Field))
                continue;
            const char *S = stringText(C, Init);
            if (S && isArchName(S))
                Cd->arch = S;
            if (Fields.size() < 400)
                Fields +=
                    (Fields.empty() ? "" : ", ") + F->getName().str() + "=" + valueText(C, Init);
        }
        Cd->fields = C.str(Fields);
        Cd->file = findCodeObject(C, Spec, Cd->code_object, Cd->arch, L.location.file);
    }
}

// The code objects a path names per arch: with a {arch} directory, every
// gfx* folder that holds it under the first ancestor of the launching file's
// directory that has any (aiter: hsa/gfx942/x.co and hsa/gfx950/x.co), by
// arch; else the one file. Empty when none is found.
std::vector<std::pair<const char *, const char *>>
codeObjectsPerArch(CaptureContext &C, const LoaderSpec &Spec, const char *Path,
                   const char *FromFile) {
    std::vector<std::pair<const char *, const char *>> Out;
    std::string Dir = Spec.CoDir;
    size_t A = Dir.find("{arch}");
    if (A == std::string::npos || !Path || strchr(Path, '$')) {
        if (const char *F = findCodeObject(C, Spec, Path, nullptr, FromFile))
            Out.push_back({nullptr, F});
        return Out;
    }
    std::string Head = Dir.substr(0, A), Tail = Dir.substr(A + 6);
    llvm::SmallString<256> Up(FromFile ? FromFile : "");
    llvm::sys::path::remove_filename(Up);
    for (int Level = 0; Level < 8 && !Up.empty() && Out.empty(); Level++) {
        llvm::SmallString<256> Base(Up);
        llvm::sys::path::append(Base, Head);
        std::error_code EC;
        std::set<std::string> Archs;
        for (llvm::sys::fs::directory_iterator It(Base, EC), End; !EC && It != End;
             It.increment(EC)) {
            std::string Name = llvm::sys::path::filename(It->path()).str();
            if (isArchName(Name.c_str()))
                Archs.insert(Name);
        }
        for (const std::string &Arch : Archs) {
            llvm::SmallString<256> P(Base);
            llvm::sys::path::append(P, Arch, Tail, Path);
            if (llvm::sys::fs::exists(P))
                Out.push_back({C.str(Arch), C.str(P.str())});
        }
        size_t Parent = llvm::sys::path::parent_path(Up).size();
        if (Parent == 0 || Parent >= Up.size())
            break;
        Up.resize(Parent);
    }
    return Out;
}

// The conditions a wrapper's call sits under, as one expression: each
// if / ternary / case / early exit of the function it is written in
// (loops left out), `!(c)` where the statement is in the else branch.
const char *callCondition(CaptureContext &C, const LoaderConstruction &K) {
    if (!K.In)
        return nullptr;
    std::string Text;
    for (const Guard &G : collectGuards(C, K.At, K.In)) {
        if (!G.Condition || !strcmp(G.Kind, "for") || !strcmp(G.Kind, "range_for") ||
            !strcmp(G.Kind, "while") || !strcmp(G.Kind, "do"))
            continue;
        if (!Text.empty())
            Text += " && ";
        Text += G.Holds ? std::string(G.Condition) : "!(" + std::string(G.Condition) + ")";
    }
    return Text.empty() ? nullptr : C.str(Text);
}

// The wrapper call's other arguments, `param=value, ...` (by the wrapper's
// parameter names; arguments left to their defaults are not written).
const char *wrapperFields(CaptureContext &C, const LoaderConstruction &K, const Expr *NameE,
                          const Expr *PathE) {
    std::vector<const Expr *> Args;
    if (const auto *CE = dyn_cast<CallExpr>(K.At))
        Args.assign(CE->arg_begin(), CE->arg_end());
    else if (const auto *KE = dyn_cast<CXXConstructExpr>(K.At))
        Args.assign(KE->arg_begin(), KE->arg_end());
    std::string Fields;
    for (unsigned I = 0; I < Args.size() && I < K.Via->getNumParams(); I++) {
        if (isa<CXXDefaultArgExpr>(Args[I]) || Args[I] == NameE || Args[I] == PathE)
            continue;
        const ParmVarDecl *P = K.Via->getParamDecl(I);
        Fields += (Fields.empty() ? "" : ", ") +
                  (P->getIdentifier() ? P->getName().str() : "#" + std::to_string(I)) + "=" +
                  valueText(C, Args[I]);
    }
    return Fields.empty() ? nullptr : C.str(Fields);
}

void setWrapper(CaptureContext &C, kw_asm_choice &Ch, const LoaderConstruction &K) {
    if (!K.Via)
        return;
    const auto *Ctor = dyn_cast<CXXConstructorDecl>(K.Via);
    Ch.wrapper = Ctor ? C.printedName(Ctor->getParent()) : C.printedName(K.Via);
    if (K.Inner)
        Ch.wrapper_location = C.loc(K.Inner->getBeginLoc());
}

// A loader built in a wrapper from literal arguments of a call of it: one
// candidate per code object found (per arch for aiter's loader), under the
// conditions of the call.
void wrapperChoice(CaptureContext &C, kw_launch &L, const LoaderConstruction &K,
                   const Expr *NameE, const Expr *PathE, const LoaderSpec &Spec) {
    kw_asm_choice *Ch = KW_PUSH(C.arena(), L.asm_choices);
    if (!Ch)
        return;
    Ch->construction = C.loc(K.At->getBeginLoc());
    setWrapper(C, *Ch, K);
    const char *Kernel = stringText(C, NameE), *Path = stringText(C, PathE);
    const char *Cond = callCondition(C, K), *Fields = wrapperFields(C, K, NameE, PathE);
    auto Files = codeObjectsPerArch(C, Spec, Path, L.location.file);
    if (Files.empty())
        Files.push_back({nullptr, nullptr});
    for (const auto &[Arch, File] : Files) {
        kw_asm_candidate *Cd = KW_PUSH(C.arena(), Ch->candidates);
        if (!Cd)
            return;
        Cd->asm_kernel = Kernel;
        Cd->code_object = Path;
        Cd->file = File;
        Cd->arch = Arch;
        Cd->condition = Cond;
        Cd->fields = Fields;
        Cd->location = C.loc(K.At->getBeginLoc());
    }
    Ch->rows = (int)Ch->candidates.n;
}

// A choice per table the name and path can be read from (both from one
// table: the same rows; the name from a table and the path fixed, or the
// other way round).
void tableChoices(CaptureContext &C, kw_launch &L, const LoaderConstruction &K,
                  const Expr *NameE, const Expr *PathE, const std::vector<TableField> &Ns,
                  const std::vector<TableField> &Ps, const LoaderSpec &Spec) {
    static const TableField None{};
    if (Ns.empty() || Ps.empty()) {
        for (const TableField &T : Ns.empty() ? Ps : Ns)
            tableChoice(C, L, K, NameE, PathE, Ns.empty() ? None : T, !Ns.empty(),
                        Ns.empty() ? T : None, Ns.empty(), Spec);
        return;
    }
    for (const TableField &N : Ns)
        for (const TableField &P : Ps)
            if (N.Table == P.Table && N.Lookup == P.Lookup)
                tableChoice(C, L, K, NameE, PathE, N, true, P, true, Spec);
}

void recordLoaderLaunch(CaptureContext &C, kw_launch &L, const CXXMemberCallExpr *MC,
                        const LoaderSpec &Spec, const CXXRecordDecl *Class,
                        const FunctionDecl *Enclosing, AsmModules &M) {
    L.kind = "asm_loader";
    L.loader = Spec.Class;
    unsigned NameArg = (unsigned)atoi(Spec.NameArg), PathArg = (unsigned)atoi(Spec.PathArg);
    // Every construction the launched object can come from; the kernel and
    // code object are recorded when they all agree, the rows of a table
    // each construction reads them from as choices.
    const char *Kernel = nullptr, *Path = nullptr;
    bool KernelAgrees = true, PathAgrees = true, Any = false;
    std::vector<LoaderConstruction> Ks;
    for (const LoaderConstruction &K0 :
         loaderConstructions(C, MC->getImplicitObjectArgument(), Class, M))
        if (NameArg < K0.Args.size() && PathArg < K0.Args.size())
            for (const LoaderConstruction &K : throughWrappers(C, K0, {NameArg, PathArg}, M)) {
                // one call reached two ways (a make_unique's own body and
                // the call itself) is one construction
                bool Seen = false;
                for (const LoaderConstruction &O : Ks)
                    Seen = Seen || (O.At == K.At && O.Args == K.Args);
                if (!Seen)
                    Ks.push_back(K);
            }
    for (const LoaderConstruction &K : Ks) {
        const Expr *NameE = K.Args[NameArg], *PathE = K.Args[PathArg];
        std::vector<TableField> Ns = tableFields(C, NameE, M), Ps = tableFields(C, PathE, M);
        size_t Before = L.asm_choices.n;
        if (!Ns.empty() || !Ps.empty())
            tableChoices(C, L, K, NameE, PathE, Ns, Ps, Spec);
        else if (K.Via)
            wrapperChoice(C, L, K, NameE, PathE, Spec);
        for (size_t Ci = Before; Ci < L.asm_choices.n; Ci++) {
            kw_asm_choice &Ch = L.asm_choices.v[Ci];
            setWrapper(C, Ch, K);
            for (size_t I = 0; I < Ch.candidates.n; I++) {
                agree(Kernel, KernelAgrees, Ch.candidates.v[I].asm_kernel);
                agree(Path, PathAgrees, Ch.candidates.v[I].code_object);
            }
            if ((size_t)Ch.rows > Ch.candidates.n)
                KernelAgrees = PathAgrees = false; // rows not read
        }
        if (L.asm_choices.n == Before) {
            agree(Kernel, KernelAgrees, stringText(C, NameE));
            agree(Path, PathAgrees, stringText(C, PathE));
        }
        Any = true;
    }
    if (Any && KernelAgrees)
        L.asm_kernel = Kernel;
    if (Any && PathAgrees)
        L.code_object = Path;
    unsigned ArgsArg = (unsigned)atoi(Spec.ArgsArg);
    const InitListExpr *IL = ArgsArg < MC->getNumArgs() ? argsInit(MC->getArg(ArgsArg)) : nullptr;
    if (!IL)
        return;
    std::vector<std::string> G = splitFields(Spec.GridFields), B = splitFields(Spec.BlockFields);
    if (G.size() == 3)
        dims(C, L.grid, fieldInit(IL, G[0]), fieldInit(IL, G[1]), fieldInit(IL, G[2]), Enclosing);
    if (B.size() == 3)
        dims(C, L.block, fieldInit(IL, B[0]), fieldInit(IL, B[1]), fieldInit(IL, B[2]),
             Enclosing);
    if (strcmp(Spec.StreamField, "-"))
        if (const Expr *S = fieldInit(IL, Spec.StreamField))
            L.stream.expr = C.exprText(S);
}

} // namespace

// The declaration a module or function handle expression names: a variable
// (local, static local, global, static member) or a data member (of any
// object: the member is the key, not the object). &x and *x name x.
const Decl *handleDecl(const Expr *E) {
    for (int Steps = 0; E && Steps < 8; Steps++) {
        E = E->IgnoreParenImpCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(E);
            UO && (UO->getOpcode() == UO_AddrOf || UO->getOpcode() == UO_Deref)) {
            E = UO->getSubExpr();
            continue;
        }
        if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
            if (const auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
                return VD->getCanonicalDecl();
        if (const auto *ME = dyn_cast<MemberExpr>(E))
            if (isa<FieldDecl>(ME->getMemberDecl()) || isa<VarDecl>(ME->getMemberDecl()))
                return ME->getMemberDecl()->getCanonicalDecl();
        return nullptr;
    }
    return nullptr;
}

bool isAsmLaunchCall(const CallExpr *CE) {
    return loaderCall(CE) || isModuleLaunch(CE);
}

bool isLoaderMethod(const FunctionDecl *FD) {
    const auto *M = dyn_cast<CXXMethodDecl>(FD);
    if (!M)
        return false;
    if (loaderOf(M->getParent()))
        return true;
    // a base class of a loader (one scan of the TU per AST)
    static std::map<const ASTContext *, std::set<const CXXRecordDecl *>> BasesOf;
    auto It = BasesOf.find(&FD->getASTContext());
    if (It == BasesOf.end()) {
        LoaderBases V;
        V.TraverseDecl(FD->getASTContext().getTranslationUnitDecl());
        It = BasesOf.emplace(&FD->getASTContext(), std::move(V.Bases)).first;
    }
    return It->second.count(M->getParent()->getCanonicalDecl()) > 0;
}

void recordAsmLaunch(CaptureContext &C, const PendingLaunch &P, const HostCallGraph &G,
                     AsmModules &M) {
    const auto *CE = cast<CallExpr>(P.Site);
    kw_launch *L = KW_PUSH(C.arena(), C.doc().launches);
    if (!L)
        return;
    placeLaunch(C, *L, CE->getBeginLoc());
    const CXXRecordDecl *Class = nullptr;
    if (const LoaderSpec *Spec = loaderCall(CE, &Class))
        recordLoaderLaunch(C, *L, cast<CXXMemberCallExpr>(CE), *Spec, Class, P.Enclosing, M);
    else
        recordModuleLaunch(C, *L, CE, P.Enclosing, M);
    L->function = hostFunctionName(C, P.Enclosing);
    L->function_symbol = hostSymbol(C, P.Enclosing);
    chainLaunch(C, *L, P.Enclosing, G);
    attributeToUser(*L);
    appendGuards(C, L->guards, collectGuards(C, P.Site, P.Enclosing));
}

} // namespace kwalk
