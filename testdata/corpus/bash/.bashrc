# ~/.bashrc: executed by bash for non-login interactive shells.

# Not interactive: do nothing.
case $- in
*i*) ;;
*) return ;;
esac

HISTCONTROL=ignoreboth:erasedups
HISTSIZE=50000
HISTFILESIZE=100000
shopt -s histappend checkwinsize globstar

# A prompt with the git branch, when there is one.
__git_branch() {
	local branch
	branch=$(git symbolic-ref --short HEAD 2>/dev/null) || return 0
	printf ' (%s)' "$branch"
}
PS1='\[\e[1;34m\]\w\[\e[0m\]$(__git_branch) \$ '

alias ll='ls -alF'
alias gs='git status --short --branch'

# mkcd DIR: make a folder and go into it.
mkcd() {
	mkdir -p -- "$1" && cd -- "$1" || return
}

if [[ -f ~/.bash_aliases ]]; then
	. ~/.bash_aliases
fi
