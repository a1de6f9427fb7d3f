#pragma once
namespace hpcreward {
// The `git describe --dirty` of the source tree this binary was built from.
const char *git_revision();
}  // namespace hpcreward
