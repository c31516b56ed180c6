// kw_parents.h: the parent of a statement in a host function, for the walks
// up from a launch or call to its function's entry (kw_guards.cpp) and from a
// variable's use to what uses it (kw_constants.cpp). Clang's own parent map
// (ASTContext::getParents) indexes every node of the whole AST the first time
// it is asked, about a quarter of the host job's capture on aiter's TUs; this
// one indexes only the bodies of the functions asked about, by
// Stmt::children(), and steps from a lambda's body to the lambda expression
// as clang's does (through the call operator). A node outside those bodies (a
// constructor's member initializer, a default argument) is left to clang's
// map: ParentIndex::parent says so.
#ifndef KW_PARENTS_H
#define KW_PARENTS_H

#include "clang/AST/ASTTypeTraits.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace clang {
class ASTContext;
}

namespace kwalk {

class ParentIndex {
  public:
    // L is written in the body of WrittenIn (the host traversal's function).
    void noteLambda(const clang::LambdaExpr *L, const clang::FunctionDecl *WrittenIn);
    // Index the body of Fn, and, where Fn is a lambda's call operator, the
    // bodies of the functions the lambda is written in.
    void index(const clang::FunctionDecl *Fn);
    // Node's first parent as ASTContext::getParents would give it, from this
    // index: false where the index does not know Node (ask clang's map).
    // An empty Parent: no parent (a function that is not a lambda's).
    bool parent(const clang::DynTypedNode &Node, clang::DynTypedNode &Parent) const;
    // The same, from this index where it knows Node, else from clang's map.
    clang::DynTypedNode parentOf(clang::ASTContext &Ctx, const clang::DynTypedNode &Node) const;

  private:
    void indexBody(const clang::FunctionDecl *Fn);
    llvm::DenseMap<const clang::Stmt *, const clang::Stmt *> Parents;
    llvm::DenseMap<const clang::Stmt *, const clang::FunctionDecl *> BodyOf; // root -> function
    llvm::DenseMap<const clang::CXXRecordDecl *, const clang::LambdaExpr *> LambdaOf;
    llvm::DenseMap<const clang::LambdaExpr *, const clang::FunctionDecl *> WrittenIn;
    llvm::DenseSet<const clang::FunctionDecl *> Indexed;
};

} // namespace kwalk

#endif
