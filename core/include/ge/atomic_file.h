#pragma once
/// Writing an output file so that it is either the old file or the whole new one: a
/// process killed mid-write, a full disk or a power cut never leaves a truncated file
/// under the final name.

#include <filesystem>
#include <string_view>

#include "ge/status.h"

namespace ge {

/// Writes `bytes` to `path` atomically: into a new temporary file beside it (same folder,
/// so the rename cannot cross file systems), fsync, rename over `path`, fsync of the
/// folder. A replaced file keeps its permission bits; a symbolic link is followed and
/// its target replaced. On any error the temporary is removed, `path` is untouched, and
/// the kInvalidArgument message names `path` and the reason ("No space left on device").
/// An existing `path` that is not a regular file (a device such as /dev/null, a FIFO) is
/// written in place, since it cannot be replaced. Other hard links to a replaced file keep
/// its old contents. A process killed mid-write leaves its hidden temporary
/// (".NAME.tmp-PID-N") beside `path`, never a truncated `path`. Thread-safe.
Status write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace ge
