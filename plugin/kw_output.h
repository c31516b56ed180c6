// kw_output.h: where the plugin's files go and how they get there: the
// per-arch device fragments (keyed by the TU's -cuid), the merged sidecar next
// to the host object (or in -fplugin-arg-kwalk-out=DIR / $KWALK_OUT), and the
// single "kwalk:" warning that replaces any failure.
#ifndef KW_OUTPUT_H
#define KW_OUTPUT_H

#include <string>

#include "kw_warn.h"

extern "C" {
#include "sidecar/kw_sidecar.h"
}

namespace kwalk {

struct OutputOptions {
    std::string OutDir; // empty: next to the object
    // The sidecar as one zstd frame (FILE.kwalk.yaml.zst), the default;
    // -fplugin-arg-kwalk-compress=none or KWALK_COMPRESS=none: plain YAML.
    // Fragments between the jobs are always in the packed form.
    bool Zstd = true;
    // Embed mode (-fplugin-arg-kwalk-embed, KWALK_EMBED=1): the host job puts
    // the sidecar into the host object (kw_embed_sidecar.h) instead of a file.
    bool Embed = false;
};

// Device fragments are in the packed form of sidecar/kw_sidecar_pack.h: the
// device jobs write them and the host job of the same compile reads them.
#define KW_FRAGMENT_SUFFIX ".kwf"

// The directory device fragments are exchanged through.
std::string fragmentDir(const OutputOptions &O);
std::string fragmentPath(const OutputOptions &O, const std::string &Cuid, const std::string &Arch);

// Path of the sidecar for an object (or, without one, for the source), in its
// plain form (FILE.kwalk.yaml); the zstd form adds KW_SIDECAR_ZSTD_SUFFIX.
std::string sidecarPath(const OutputOptions &O, const std::string &Object,
                        const std::string &Source, const std::string &Cuid);

// Merge every fragment of this cuid into Doc, then delete them; *Merged
// counts them.
kw_status mergeFragments(const OutputOptions &O, const std::string &Cuid, kw_sidecar &Doc,
                         size_t *Merged, kw_err *Err);

// A device job's failure is reported by the host job of the same compile, so
// that one compile prints one warning: the device job leaves a note in the
// temporary fragment directory (false if it could not), the host job collects
// and deletes the notes of its cuid. A device job that succeeds clears its note.
bool noteDeviceFailure(const std::string &Cuid, const std::string &Arch, const std::string &Msg);
void clearDeviceFailure(const std::string &Cuid, const std::string &Arch);
std::string collectDeviceFailures(const std::string &Cuid);

} // namespace kwalk

#endif
