// kw_entry_names.h: names of annotated entry points (annotations/
// entrypoints/functions.txt compiled in, plus a project's file).
#ifndef KW_ENTRY_NAMES_H
#define KW_ENTRY_NAMES_H

#include <set>
#include <string>

namespace kwalk {

std::set<std::string> defaultEntryNames();
// Adds the names of File's 'function NAME' lines; false with Error set (and
// Names unchanged) when File cannot be read or a line is malformed.
bool readEntryNames(const std::string &File, std::set<std::string> &Names, std::string &Error);

} // namespace kwalk

#endif
