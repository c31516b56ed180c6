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
struct LoaderConstruction {
    const clang::Expr *At;
    std::vector<const clang::Expr *> Args;
};

// The constructions an object expression (`impl`, `impl_ptr`, `*p`,
// `p.get()`) can hold: its variable's or member's initializer and every
// assignment to it in the TU, followed through &, *, ->, copies, new,
// std::make_unique/make_shared and any call's arguments (lambdas included:
// `cache.get_or_create(key, [&] { return Loader(name, co); })`).
std::vector<LoaderConstruction> loaderConstructions(CaptureContext &C, const clang::Expr *Obj,
                                                    const clang::CXXRecordDecl *Loader,
                                                    AsmModules &M);

// A value read from a field (or the key) of the rows of a constant table.
struct TableField {
    const clang::VarDecl *Table = nullptr;
    const clang::Expr *Lookup = nullptr; // the key (find/at/[]) or index; null when unknown
    bool Key = false;                    // the row's key, not a field of its value
    std::string Field;                   // the value's field
};
// True when E (a string argument) is such a field, seen through locals set
// once, references, iterators (`it->second.name`), c_str() and pointers.
bool tableField(CaptureContext &C, const clang::Expr *E, AsmModules &M, TableField &Out);

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
