# bash completion for archpatch (installed as share/bash-completion/completions/archpatch).
# The commands come from `archpatch --help` and each command's options from
# `archpatch COMMAND --help`, so completion follows the binary it completes; rule ids come from
# `archpatch rules list` and arch names from `archpatch arches`.

_archpatch_commands() {
  "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

_archpatch_options() {
  "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

_archpatch() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local exe=${COMP_WORDS[0]} command="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) command=${COMP_WORDS[i]}; break ;;
    esac
  done
  COMPREPLY=()
  if [[ -z $command ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_archpatch_commands "$exe") --version --help -v -vv" -- "$cur")
    return
  fi
  case $prev in
    --rule)
      mapfile -t COMPREPLY < <(compgen -W "$("$exe" rules list 2>/dev/null | awk '{ print $1 }')" -- "$cur")
      mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -X '!*.y*ml' -- "$cur"; compgen -d -- "$cur")
      return ;;
    --arch | --against)
      mapfile -t COMPREPLY < <(compgen -W "$("$exe" arches 2>/dev/null | grep -o '\bsm_[0-9]*[af]\?\b' | sort -u)" -- "$cur")
      return ;;
    --site-packages | --root | --dir | --out)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return ;;
    --python | --plan | --expr-file)
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      return ;;
    --proof-engine)
      mapfile -t COMPREPLY < <(compgen -W "auto nvcc libclang" -- "$cur")
      return ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_archpatch_options "$exe" "$command")" -- "$cur")
  elif [[ $command == rules && $prev == rules ]]; then
    mapfile -t COMPREPLY < <(compgen -W "list show check test" -- "$cur")
  elif [[ $command == caches && $prev == caches ]]; then
    mapfile -t COMPREPLY < <(compgen -W "list clear" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}

complete -o filenames -F _archpatch archpatch
