// kw_context.cpp: turning Clang locations, names and expressions into the
// sidecar's strings.
#include "kw_context.h"

#include "kw_compat.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace kwalk {

CaptureContext::CaptureContext(ASTContext &Ctx, kw_sidecar &Doc)
    : Ctx(Ctx), Doc(Doc), Policy(Ctx.getPrintingPolicy()),
      Names(std::make_unique<ASTNameGenerator>(Ctx)) {
    SourceManager &SM = Ctx.getSourceManager();
    if (auto FE = SM.getFileEntryRefForID(SM.getMainFileID())) {
        llvm::StringRef Ext = llvm::sys::path::extension(FE->getName());
        LineDirectives = Ext == ".hipi" || Ext == ".cui" || Ext == ".ii" || Ext == ".i";
    }
    Policy.SuppressTagKeyword = true;
    Policy.SuppressUnwrittenScope = true;
    Policy.FullyQualifiedName = true;
    // Every template argument, defaulted ones included: a printed name has as
    // many arguments as the mangled symbol.
    Policy.SuppressDefaultTemplateArgs = false;
    setPrintCanonical(Policy, false);
}

const char *CaptureContext::str(llvm::StringRef S) {
    return kw_arena_strndup(arena(), S.data(), S.size());
}

kw_loc CaptureContext::loc(SourceLocation L) {
    kw_loc out = {nullptr, 0, 0};
    if (L.isInvalid())
        return out;
    auto Known = Locs.find(L.getRawEncoding());
    if (Known != Locs.end())
        return Known->second;
    SourceManager &SM = sm();
    SourceLocation F = SM.getFileLoc(L);
    PresumedLoc P = SM.getPresumedLoc(F, LineDirectives);
    if (P.isInvalid())
        return out;
    // The presumed name is owned by the SourceManager and stays put: one
    // absolute path per file, not one per location.
    const char *&File = Paths[P.getFilename()];
    if (!File) {
        llvm::SmallString<256> Path(P.getFilename());
        if (!Path.empty() && Path[0] != '<') {
            llvm::sys::fs::make_absolute(Path);
            llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
        }
        File = str(Path);
    }
    out.file = File;
    out.line = (int)P.getLine();
    out.column = (int)P.getColumn();
    if (out.file)
        Locs[L.getRawEncoding()] = out;
    return out;
}

const char *CaptureContext::symbol(const NamedDecl *D) {
    const char *&Known = Symbols[D];
    if (Known)
        return Known;
    std::string S = Names->getName(D);
    if (S.empty())
        S = D->getQualifiedNameAsString();
    return Known = str(S);
}

namespace {

// Whether D sits inside a lambda's closure class, and every unnamed class
// around it is a lambda's.
bool inLambdaOnly(const NamedDecl *D) {
    bool Lambda = false;
    for (const DeclContext *DC = D->getDeclContext(); DC; DC = DC->getParent()) {
        const auto *RD = dyn_cast<CXXRecordDecl>(DC);
        if (!RD || RD->getIdentifier())
            continue;
        if (!RD->isLambda())
            return false;
        Lambda = true;
    }
    return Lambda;
}

// Whether the '<' or '>' at I belongs to an operator's name (operator<,
// operator<<=, operator>>): "operator" starts at most 9 characters before I
// and only '<' and '>' lie between its end and I. Only those 10 positions
// are looked at (a search back through the whole name at every character
// made naming a ck_tile lambda, 3-5 KB of template text, quadratic).
bool operatorBefore(const std::string &S, size_t I) {
    for (size_t Op = I + 1; Op-- > (I >= 9 ? I - 9 : 0);)
        if (S.compare(Op, 8, "operator") == 0)
            return S.find_first_not_of("<>", Op + 8) >= I;
    return false;
}

// A lambda's closure class in a qualified name as clang 20 and later print
// it, "(lambda)", where clang 19 prints "(anonymous class)": one name on
// every major, which annotations/calltree/ patterns match. Only the
// qualifier's own components change (outside template arguments and
// parameter lists, where a closure type prints "(lambda at F:L:C)").
void nameLambdas(std::string &S) {
    static const char Anon[] = "(anonymous class)";
    const size_t AnonLen = sizeof Anon - 1;
    std::string Out;
    int Depth = 0;
    for (size_t I = 0; I < S.size(); I++) {
        if (Depth == 0 && S.compare(I, AnonLen, Anon) == 0 && I >= 2 &&
            S.compare(I - 2, 2, "::") == 0) {
            Out += "(lambda)";
            I += AnonLen - 1;
            continue;
        }
        char Ch = S[I];
        // (operator<, operator<<, operator>: a name, not a bracket)
        if ((Ch == '<' || Ch == '>') && operatorBefore(S, I)) {
            Out += Ch;
            continue;
        }
        if (Ch == '<' || Ch == '(')
            Depth++;
        else if ((Ch == '>' || Ch == ')') && Depth > 0)
            Depth--;
        Out += Ch;
    }
    S.swap(Out);
}

} // namespace

const char *CaptureContext::printedName(const NamedDecl *D) {
    const char *&Known = Printed[D];
    if (Known)
        return Known;
    std::string S;
    llvm::raw_string_ostream OS(S);
    D->getNameForDiagnostic(OS, Policy, /*Qualified=*/true);
    OS.flush();
    if (inLambdaOnly(D))
        nameLambdas(S);
    return Known = str(S);
}

std::string CaptureContext::rangeString(SourceRange Range) {
    SourceManager &SM = sm();
    CharSourceRange R = CharSourceRange::getTokenRange(Range);
    CharSourceRange FR = Lexer::makeFileCharRange(R, SM, Ctx.getLangOpts());
    if (!FR.isValid())
        return std::string();
    bool Invalid = false;
    StringRef T = Lexer::getSourceText(FR, SM, Ctx.getLangOpts(), &Invalid);
    if (Invalid)
        return std::string();
    // Fold line breaks and runs of blanks: one line.
    std::string Out;
    bool Space = false;
    for (char C : T) {
        if (C == '\n' || C == '\r' || C == '\t' || C == ' ') {
            Space = true;
            continue;
        }
        if (Space && !Out.empty())
            Out += ' ';
        Space = false;
        Out += C;
    }
    return Out;
}

std::string CaptureContext::exprString(const Expr *E) {
    if (!E)
        return std::string();
    SourceManager &SM = sm();
    // Implicit conversions and copies are not what the user wrote, nor are
    // parentheses a macro body put around its argument.
    E = E->IgnoreUnlessSpelledInSource();
    for (int I = 0; I < 8; I++) {
        const auto *P = dyn_cast<ParenExpr>(E->IgnoreImplicit());
        if (!P || !P->getLParen().isMacroID() || SM.isMacroArgExpansion(P->getLParen()))
            break;
        E = P->getSubExpr();
    }
    std::string Text = rangeString(E->getSourceRange());
    if (!Text.empty())
        return Text;
    std::string S;
    llvm::raw_string_ostream OS(S);
    E->printPretty(OS, nullptr, Policy);
    return OS.str();
}

const char *CaptureContext::exprText(const Expr *E) {
    if (!E)
        return nullptr;
    const char *&Known = Texts[E];
    if (!Known)
        Known = str(exprString(E));
    return Known;
}

std::string CaptureContext::typeString(QualType T) {
    return T.getAsString(Policy);
}

bool CaptureContext::inSystemHeader(SourceLocation L) {
    if (L.isInvalid())
        return false;
    return sm().isInSystemHeader(sm().getFileLoc(L));
}

} // namespace kwalk
