#!/usr/bin/env bash
# The deployment script to copy: patch the installed packages for this GPU with archpatch, start
# the service, and take the patch out again before upgrading the packages.
#
#   examples/deploy.sh deploy        # audit, apply the rules, start the service
#   examples/deploy.sh pre-upgrade   # revert everything applied (run before `pip install -U ...`)
#   examples/deploy.sh status        # what is applied, and whether the files are still as left
#   examples/deploy.sh install PKG   # install archpatch itself from scripts/package.sh's output:
#                                    # a .deb (apt-get, which installs its Depends) or the tarball
#                                    # (unpacked into ARCHPATCH_PREFIX, linked from BIN_DIR)
#
# Settings (environment variables; the defaults run the bundled example, minifi):
#   ARCHPATCH      the archpatch binary                      (build/archpatch, else on PATH)
#   SITE_PACKAGES  the environment to patch                  (a copy of examples/minipkg/site-packages)
#   ARCH           the GPU arch to audit for                 (sm_120)
#   RULES          rule ids or files, space-separated        (examples/minipkg/rules/minifi-allreduce.yaml)
#   START          the command that starts the service       (the example's demo.py)
#   ARCHPATCH_PREFIX, BIN_DIR  where `install` puts the tarball's tree and the archpatch link
#                                                            (/opt/archpatch, /usr/local/bin)
#   ON_REFUSED     abort | start: what to do when archpatch refuses the rules (exit 3), e.g. after
#                  an upgrade to a release the rules do not fit; "start" runs the unpatched packages,
#                  which is safe for SGLang (the fusion simply stays off)     (abort)
# For SGLang on an RTX PRO 6000 / RTX 5090 (SM120) or DGX Spark (SM121):
#   SITE_PACKAGES=$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') \
#   ARCH=sm_120 RULES="flashinfer-trtllm-allreduce-sm12x sglang-flashinfer-allreduce-fusion-sm12x" \
#   START="python -m sglang.launch_server --model-path ... --tp 2 --enable-flashinfer-allreduce-fusion" \
#   examples/deploy.sh deploy
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")

# archpatch's exit codes (docs/cli.md).
readonly EXIT_CHANGED=0 EXIT_NOTHING_TO_DO=1 EXIT_USAGE=2 EXIT_REFUSED=3

if [[ -z "${ARCHPATCH:-}" ]]; then
  if [[ -x "$repo/build/archpatch" ]]; then ARCHPATCH="$repo/build/archpatch"; else ARCHPATCH=archpatch; fi
fi
ARCH=${ARCH:-sm_120}
ON_REFUSED=${ON_REFUSED:-abort}

example_defaults() {
  # The bundled example patches a scratch copy, never the files in this repository.
  local scratch=${DEPLOY_EXAMPLE_DIR:-${TMPDIR:-/tmp}/archpatch-deploy-example}
  if [[ ! -d "$scratch/site-packages" ]]; then
    mkdir -p "$scratch"
    cp -R "$here/minipkg/site-packages" "$scratch/site-packages"
  fi
  SITE_PACKAGES="$scratch/site-packages"
  : "${RULES:=$here/minipkg/rules/minifi-allreduce.yaml}"
  : "${START:=python3 $here/minipkg/demo.py}"
  export PYTHONPATH="$SITE_PACKAGES${PYTHONPATH:+:$PYTHONPATH}"
  export MINIFI_WORKSPACE_BASE=${MINIFI_WORKSPACE_BASE:-$scratch}
}

# install PKG: the .deb through apt-get, or the tarball into a new folder swapped in whole, so an
# upgrade leaves no file of the previous release behind. Either way the binary finds its rules
# from its own location (share/archpatch beside bin/), through the link too.
install_archpatch() {
  local package=${1:?usage: $0 install archpatch_VERSION_amd64.deb | archpatch-VERSION-linux-x86_64.tar.gz}
  local prefix=${ARCHPATCH_PREFIX:-/opt/archpatch} bin_dir=${BIN_DIR:-/usr/local/bin}
  case $package in
    *.deb) DEBIAN_FRONTEND=noninteractive apt-get install -y "$(realpath "$package")"; archpatch --version ;;
    *.tar.gz)
      rm -rf "$prefix.new" && mkdir -p "$prefix.new" "$bin_dir"
      tar -xzf "$package" -C "$prefix.new" --strip-components=1 --no-same-owner
      rm -rf "$prefix" && mv "$prefix.new" "$prefix"
      ln -sfn "$prefix/bin/archpatch" "$bin_dir/archpatch"
      "$bin_dir/archpatch" --version ;;
    *) echo "deploy: install: '$package' is neither a .deb nor a .tar.gz" >&2; exit 2 ;;
  esac
}
if [[ "${1:-}" == install ]]; then install_archpatch "${2:-}"; exit; fi

[[ -n "${SITE_PACKAGES:-}" ]] || example_defaults
: "${RULES:?set RULES to the rule ids or files to apply}"
: "${START:?set START to the command that starts the service}"

log() { printf 'deploy: %s\n' "$*" >&2; }

# --rule ID|FILE for each rule, NUL-separated.
rule_args() {
  local rule
  for rule in $RULES; do printf -- '--rule\0%s\0' "$rule"; done
}

audit() {
  log "audit for $ARCH: the gates that exclude it (exit 1 = gates found, which is expected here)"
  local rc=0
  "$ARCHPATCH" audit --arch "$ARCH" "$SITE_PACKAGES" || rc=$?
  if ((rc == EXIT_USAGE)); then log "audit: usage error"; exit "$rc"; fi
}

apply_rules() {
  local -a args
  mapfile -d '' args < <(rule_args)
  local rc=0
  "$ARCHPATCH" apply "${args[@]}" --site-packages "$SITE_PACKAGES" || rc=$?
  case $rc in
    "$EXIT_CHANGED") log "apply: patched (JIT caches of the patched modules cleared)" ;;
    "$EXIT_NOTHING_TO_DO") log "apply: nothing to do (already applied, or the release already has it)" ;;
    "$EXIT_USAGE") log "apply: usage error (rule id, path or option)"; exit "$rc" ;;
    "$EXIT_REFUSED")
      log "apply: REFUSED: the installed files do not match the rules; nothing was changed"
      if [[ "$ON_REFUSED" != start ]]; then exit "$rc"; fi
      log "apply: ON_REFUSED=start: starting the unpatched packages" ;;
    *) log "apply: unexpected exit code $rc"; exit "$rc" ;;
  esac
}

# Before an upgrade everything archpatch applied here goes, whichever rules did it; --all also
# answers "nothing to do" (1) where nothing is applied, so pre-upgrade can run every time.
revert_all() {
  local rc=0
  "$ARCHPATCH" revert --all --site-packages "$SITE_PACKAGES" || rc=$?
  case $rc in
    "$EXIT_CHANGED") log "revert: original files restored; upgrade away" ;;
    "$EXIT_NOTHING_TO_DO") log "revert: nothing applied" ;;
    *) log "revert: failed (exit $rc): see the message above; 'archpatch status' shows the state"; exit "$rc" ;;
  esac
}

case "${1:-deploy}" in
  deploy)
    audit
    apply_rules
    log "start: $START"
    exec $START ;;
  pre-upgrade) revert_all ;;
  status) "$ARCHPATCH" status --site-packages "$SITE_PACKAGES" ;;
  *) echo "usage: $0 [deploy|pre-upgrade|status|install PKG]" >&2; exit 2 ;;
esac
