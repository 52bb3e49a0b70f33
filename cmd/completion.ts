// `featuregates completion bash|zsh`: a completion script for the commands and their flags, generated from
// the same command table the CLI runs (so it cannot drift).
import type { OptionSpec } from './args.js';

export interface CompletionCommand { name: string; options: Record<string, OptionSpec> }

const flagsOf = (c: CompletionCommand) => [...Object.keys(c.options).map((o) => `--${o}`), '--help'].join(' ');

export function bashCompletion(commands: readonly CompletionCommand[]): string {
  const cases = commands.map((c) => `    ${c.name}) opts="${flagsOf(c)}" ;;`).join('\n');
  return `# featuregates bash completion: source <(featuregates completion bash)
_featuregates() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" opts
  if [[ \${COMP_CWORD} -eq 1 ]]; then
    COMPREPLY=( $(compgen -W "${commands.map((c) => c.name).join(' ')} --help --version" -- "$cur") )
    return
  fi
  case "$cmd" in
${cases}
    *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "$opts" -- "$cur") ); else COMPREPLY=( $(compgen -f -- "$cur") ); fi
}
complete -F _featuregates featuregates
`;
}

export function zshCompletion(commands: readonly CompletionCommand[]): string {
  const cases = commands.map((c) => `    ${c.name}) _values -w 'flag' ${[...Object.keys(c.options).map((o) => `--${o}`), '--help'].map((f) => `'${f}'`).join(' ')} ;;`).join('\n');
  return `#compdef featuregates
# featuregates zsh completion: source <(featuregates completion zsh)
_featuregates() {
  if (( CURRENT == 2 )); then
    _values 'command' ${commands.map((c) => `'${c.name}'`).join(' ')} '--help' '--version'
    return
  fi
  case "\${words[2]}" in
${cases}
  esac
  _files
}
compdef _featuregates featuregates
`;
}
