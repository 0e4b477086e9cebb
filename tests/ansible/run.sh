#!/usr/bin/env bash
# CI test of examples/ansible with Debian's ansible-core against localhost (connection: local):
# the first apply reports changed, the second reports no change, revert reports changed and
# restores the exact bytes (sha256 of every file of the tree), a second revert reports no change.
#   tests/ansible/run.sh            (ARCHPATCH=path/to/archpatch; exit 77 = skipped)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
ARCHPATCH=${ARCHPATCH:-$repo/build/archpatch}
command -v ansible-playbook >/dev/null || { echo "ansible: SKIPPED: ansible-playbook not found"; exit 77; }
[[ -x "$ARCHPATCH" ]] || { echo "ansible: no archpatch binary at '$ARCHPATCH'" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-ansible.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$repo/examples/minipkg/site-packages" "$work/site-packages"
export HOME="$work/home" ANSIBLE_LOCAL_TEMP="$work/ansible-local" ANSIBLE_REMOTE_TEMP="$work/ansible-remote"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 MINIFI_WORKSPACE_BASE="$work/home"
mkdir -p "$HOME"

tree_sums() { (cd "$work/site-packages" && find . -path ./.archpatch -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
failures=0
# playbook NAME EXPECTED_CHANGED [extra ansible-playbook args]: runs it, checks the recap.
playbook() {
  local name=$1 want=$2 rc=0
  shift 2
  ansible-playbook -i "$repo/examples/ansible/inventory.ini" "$repo/examples/ansible/$name" \
    -e "archpatch=$ARCHPATCH" -e "site_packages=$work/site-packages" \
    -e "{\"archpatch_rules\": [\"$repo/examples/minipkg/rules/minifi-allreduce.yaml\"]}" "$@" \
    >"$work/log" 2>&1 || rc=$?
  local recap
  recap=$(grep -E '^localhost +:' "$work/log" || true)
  echo "ansible-playbook $name $*: ${recap:-no recap} (exit $rc)"
  if ((rc != 0)) || ! grep -Eq "changed=$want .*failed=0" <<<"$recap"; then
    echo "  EXPECTED changed=$want failed=0; log:"; sed 's/^/  | /' "$work/log"
    failures=$((failures + 1))
  fi
}

tree_sums >"$work/sums.before"
playbook apply.yml 1 --check     # check mode: archpatch --dry-run: would change, writes nothing
if ! tree_sums | diff -q "$work/sums.before" - >/dev/null; then echo "  --check changed files"; failures=$((failures + 1)); fi
playbook apply.yml 1
if tree_sums | diff -q "$work/sums.before" - >/dev/null; then echo "  apply changed no file"; failures=$((failures + 1)); fi
playbook apply.yml 0
playbook revert.yml 1
if tree_sums | diff "$work/sums.before" - >/dev/null; then
  echo "revert: sha256 of all $(wc -l <"$work/sums.before") files identical to before apply"
else
  echo "revert: files DIFFER from before apply"; failures=$((failures + 1))
fi
playbook revert.yml 0
if ((failures > 0)); then echo "ansible: FAIL ($failures)"; exit 1; fi
echo "ansible: PASS"
