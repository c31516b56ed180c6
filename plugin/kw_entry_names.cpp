// kw_entry_names.cpp: the names of annotated entry points: the defaults
// compiled in from annotations/entrypoints/functions.txt, plus the lines of a
// project's file (-fplugin-arg-kwalk-entrypoints=FILE or KWALK_ENTRYPOINTS).
#include "kw_entry_names.h"

#include "llvm/Support/MemoryBuffer.h"

namespace kwalk {

namespace {

const char *const Defaults[][2] = {
#include "kw_entrypoints.inc"
    {nullptr, nullptr}};

} // namespace

std::set<std::string> defaultEntryNames() {
    std::set<std::string> Names;
    for (const auto &Row : Defaults)
        if (Row[0] && std::string(Row[0]) == "function")
            Names.insert(Row[1]);
    return Names;
}

bool readEntryNames(const std::string &File, std::set<std::string> &Names, std::string &Error) {
    auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
    if (!Buf) {
        Error = File + ": " + Buf.getError().message();
        return false;
    }
    llvm::StringRef Text = (*Buf)->getBuffer();
    unsigned LineNo = 0;
    while (!Text.empty()) {
        auto [Line, Rest] = Text.split('\n');
        Text = Rest;
        LineNo++;
        Line = Line.split('#').first.trim();
        if (Line.empty())
            continue;
        auto [Directive, Name] = Line.split(' ');
        Name = Name.trim();
        if (Directive != "function" || Name.empty() || Name.contains(' ') || Name.contains('\t')) {
            Error = File + ":" + std::to_string(LineNo) +
                    ": expected 'function QUALIFIED_NAME' (entry points not read)";
            return false;
        }
        Names.insert(Name.str());
    }
    return true;
}

} // namespace kwalk
