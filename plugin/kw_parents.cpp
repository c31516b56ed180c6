// kw_parents.cpp: parents of statements in the bodies of the host functions
// asked about (kw_parents.h).
#include "kw_parents.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"

#include <vector>

using namespace clang;

namespace kwalk {

void ParentIndex::noteLambda(const LambdaExpr *L, const FunctionDecl *In) {
    if (!L || !In)
        return;
    LambdaOf.try_emplace(L->getLambdaClass(), L);
    WrittenIn.try_emplace(L, In);
}

namespace {

// The nearest enclosing statement of each statement of a body, in the order
// of clang's RecursiveASTVisitor (as clang's map is built): through
// declarations (a static_assert, a variable's type) and template arguments,
// whose expressions have a statement above them, the declaration's DeclStmt.
class BodyIndexer : public RecursiveASTVisitor<BodyIndexer> {
  public:
    explicit BodyIndexer(llvm::DenseMap<const Stmt *, const Stmt *> &Parents) : Parents(Parents) {}
    bool shouldVisitImplicitCode() const {
        return true;
    }
    bool shouldVisitTemplateInstantiations() const {
        return true;
    }
    bool dataTraverseStmtPre(Stmt *S) {
        // The first parent only, as clang's map lists it first.
        if (!Stack.empty())
            Parents.try_emplace(S, Stack.back());
        Stack.push_back(S);
        return true;
    }
    bool dataTraverseStmtPost(Stmt *) {
        Stack.pop_back();
        return true;
    }

  private:
    llvm::DenseMap<const Stmt *, const Stmt *> &Parents;
    std::vector<const Stmt *> Stack;
};

} // namespace

void ParentIndex::indexBody(const FunctionDecl *Fn) {
    Stmt *Body = Fn->getBody();
    if (!Body || !BodyOf.try_emplace(Body, Fn).second)
        return;
    BodyIndexer(Parents).TraverseStmt(Body);
}

void ParentIndex::index(const FunctionDecl *Fn) {
    for (int Steps = 0; Fn && Steps < 64; Steps++) {
        if (Indexed.insert(Fn).second)
            indexBody(Fn);
        if (!isLambdaCallOperator(Fn))
            return;
        const LambdaExpr *L = LambdaOf.lookup(cast<CXXMethodDecl>(Fn)->getParent());
        if (!L)
            return;
        Fn = WrittenIn.lookup(L);
    }
}

bool ParentIndex::parent(const DynTypedNode &Node, DynTypedNode &Parent) const {
    if (const auto *S = Node.get<Stmt>()) {
        if (const Stmt *P = Parents.lookup(S)) {
            Parent = DynTypedNode::create(*P);
            return true;
        }
        if (const FunctionDecl *Fn = BodyOf.lookup(S)) {
            Parent = DynTypedNode::create(static_cast<const Decl &>(*Fn));
            return true;
        }
        return false;
    }
    // A lambda's call operator leads to the lambda expression (clang's map
    // passes through the closure class on the way; neither is a statement).
    if (const auto *Fn = Node.get<FunctionDecl>()) {
        if (!isLambdaCallOperator(Fn))
            return false;
        const LambdaExpr *L = LambdaOf.lookup(cast<CXXMethodDecl>(Fn)->getParent());
        if (!L || !Parents.count(L))
            return false;
        Parent = DynTypedNode::create(static_cast<const Stmt &>(*L));
        return true;
    }
    return false;
}

DynTypedNode ParentIndex::parentOf(ASTContext &Ctx, const DynTypedNode &Node) const {
    DynTypedNode P;
    if (parent(Node, P))
        return P;
    DynTypedNodeList Ps = Ctx.getParents(Node);
    return Ps.empty() ? DynTypedNode() : Ps[0];
}

} // namespace kwalk
