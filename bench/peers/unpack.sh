# Sourced by the peers' build scripts: bring a peer's source tree into a directory of its own.
#   peer_unpack SOURCE DEST   SOURCE: a git clone (its work tree or its .git directory), a bare
#                             repository, a plain source directory, or an archive (.tar, .tar.gz,
#                             .tgz, .tar.xz, .zip); a git repository gives its HEAD's files, an
#                             archive with one top folder gives that folder's contents
#   peer_commit SOURCE        the commit SOURCE holds, or "unknown" (a plain directory, a .zip, or
#                             an archive that git did not make)

peer_is_git() {  # SOURCE is the root of a git repository, not a folder somewhere inside one
  local d
  d=$(cd "$1" && pwd -P) || return 1
  [ "$(git -C "$d" rev-parse --is-bare-repository 2> /dev/null)" = true ] && return 0
  [ "$(git -C "$d" rev-parse --show-toplevel 2> /dev/null)" = "$d" ] && return 0
  [ "$(git -C "$d" rev-parse --absolute-git-dir 2> /dev/null)" = "$d" ] && return 0
  return 1
}

peer_unpack() {
  local src=$1 dest=$2 tmp entries
  [ -e "$src" ] || { echo "error: '$src' does not exist" >&2; return 2; }
  mkdir -p "$dest"
  if [ -d "$src" ]; then
    if peer_is_git "$src"; then
      git -C "$src" archive --format=tar HEAD | tar -x -C "$dest"
    else
      cp -a "$src/." "$dest/"
    fi
    return
  fi
  tmp=$(mktemp -d "$dest.unpack.XXXXXX")
  case "$src" in
    *.zip) unzip -q "$src" -d "$tmp" ;;
    *) tar -xf "$src" -C "$tmp" ;;
  esac || { rm -rf "$tmp"; echo "error: could not unpack '$src' (a .tar, .tar.gz, .tgz, .tar.xz or .zip)" >&2; return 2; }
  entries=$(find "$tmp" -mindepth 1 -maxdepth 1 | wc -l)
  if [ "$entries" -eq 1 ] && [ -d "$(find "$tmp" -mindepth 1 -maxdepth 1)" ]; then
    cp -a "$(find "$tmp" -mindepth 1 -maxdepth 1)/." "$dest/"
  else
    cp -a "$tmp/." "$dest/"
  fi
  rm -rf "$tmp"
}

peer_commit() {
  local src=$1 id=""
  if [ -d "$src" ]; then
    peer_is_git "$src" && id=$(git -C "$src" rev-parse HEAD 2> /dev/null)
  else
    case "$src" in
      *.zip) ;;
      *.xz) id=$(xz -dc "$src" 2> /dev/null | git get-tar-commit-id 2> /dev/null) ;;
      *) id=$(gzip -dcf "$src" 2> /dev/null | git get-tar-commit-id 2> /dev/null) ;;
    esac
  fi
  echo "${id:-unknown}"
}
