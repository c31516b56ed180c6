// kw_asm_tables.h: where an ASM loader object launched through a pointer,
// reference or cache comes from (the constructions of the loader class whose
// arguments name the kernel and its code object), and the constant tables
// those arguments may be read from (a std::unordered_map / array of structs
// initialized from literals, looked up by a key or an index).
#ifndef KW_ASM_TABLES_H
#define KW_ASM_TABLES_H

#include "kw_host_internal.h"

#include <string>
#include <vector>

namespace kwalk {

// A construction of the loader class: where, and its arguments as written.
// Where the loader is built from the parameters of the function it is
// written in (a wrapper class's constructor: `FMoeKernel(const char *name,
// const char *hsaco) : kernel(name, hsaco) {}`), a construction of each call
// of that function instead: At the call (`static FMoeKernel f("k", "k.co")`),
// Args the loader's arguments with the call's arguments put for the
// parameters, Via the wrapper, Inner the loader's own construction in it, In
// the function the call is written in (for its guards; null for a global).
struct LoaderConstruction {
    const clang::Expr *At;
    std::vector<const clang::Expr *> Args;
    const clang::FunctionDecl *Via = nullptr;
    const clang::Expr *Inner = nullptr;
    const clang::FunctionDecl *In = nullptr;
};

// The constructions an object expression (`impl`, `impl_ptr`, `*p`,
// `p.get()`) can hold: its variable's or member's initializer and every
// assignment to it in the TU, followed through &, *, ->, copies, new,
// std::make_unique/make_shared and any call's arguments (lambdas included:
// `cache.get_or_create(key, [&] { return Loader(name, co); })`).
std::vector<LoaderConstruction> loaderConstructions(CaptureContext &C, const clang::Expr *Obj,
                                                    const clang::CXXRecordDecl *Loader,
                                                    AsmModules &M);

// K itself, or where the arguments Want of K (indices into K.Args) name
// parameters of the function K is written in, one construction per call of
// that function in the TU (followed again, at most three calls out: a
// std::make_unique<Wrapper> forwards its arguments to the wrapper's
// constructor). A function nothing in the TU calls keeps K.
std::vector<LoaderConstruction> throughWrappers(CaptureContext &C, const LoaderConstruction &K,
                                                const std::vector<unsigned> &Want, AsmModules &M);

// A value read from a field (or the key) of the rows of a constant table.
struct TableField {
    const clang::VarDecl *Table = nullptr;
    const clang::Expr *Lookup = nullptr; // the key (find/at/[]) or index; null when unknown
    bool Key = false;                    // the row's key, not a field of its value
    std::string Field;                   // the value's field
};
// The table fields E (a string argument) can be, seen through locals,
// references, iterators (`it->second.name`), c_str() and pointers; a local
// assigned several times is each of its values (null pointers aside), a
// parameter each argument the TU's calls of its function pass for it (a
// table passed in: `CFG *cfgs`). One per table (and lookup) it can read;
// empty when any of those ways does not end in a table's field.
std::vector<TableField> tableFields(CaptureContext &C, const clang::Expr *E, AsmModules &M);

struct TableRow {
    const clang::Expr *Key;           // null for an array
    const clang::InitListExpr *Value; // the row's struct initializer
};
// The rows of a table variable's initializer (at most Max; Total counts all).
std::vector<TableRow> tableRows(const clang::VarDecl *Table, size_t Max, size_t &Total);
// A field's initializer in a row (null when absent); the key when Field is empty.
const clang::Expr *rowField(const TableRow &R, const std::string &Field, bool Key);

} // namespace kwalk

#endif
