# Sourced by base-image.sh and stand-in-images.sh: mmdebstrap's flags for a small Debian bookworm
# root (minbase, no documentation but copyrights, no man pages or locales, no apt lists or cache).
MINBASE_FLAGS=(--quiet --variant=minbase
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*'
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*')
