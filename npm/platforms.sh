# The six @ahpls/<platform> packages, named by Node's process.platform and
# process.arch (the same names as VS Code's vsix targets). Sourced by
# npm/build.sh and npm/publish.sh.
# shellcheck disable=SC2034
platforms=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64)
