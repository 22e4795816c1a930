# SPDX-License-Identifier: GPL-2.0
# bash completion for thpswapctl(8)

_thpswapctl_devs()
{
	local d
	for d in /sys/block/thpswap*; do
		[[ -e $d ]] && printf '%s\n' "${d##*/}"
	done
}

_thpswapctl()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi

	local commands="list stats clusters map watch dump add remove reset setup teardown help"
	local common="--json --ioctl --netlink --color --help --version"

	case $prev in
	--size|--memmap|--node|--index|--range|--interval|--count|--width)
		return ;;
	--config)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--color|--colour)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return ;;
	esac

	# The command is the first word that is neither an option nor an option's value.
	local i cmd= nargs=0
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--size|--memmap|--node|--index|--range|--interval|--count|--width|--config) ((i++)) ;;
		-*) ;;
		*) if [[ -z $cmd ]]; then cmd=${words[i]}; else ((nargs++)); fi ;;
		esac
	done

	if [[ $cur == -* ]]; then
		local opts=$common
		case $cmd in
		add) opts+=" --size --memmap --node --index" ;;
		stats) opts+=" --prometheus" ;;
		setup) opts+=" --config" ;;
		teardown) opts+=" --config --force" ;;
		clusters) opts+=" --range" ;;
		map) opts+=" --width" ;;
		watch) opts+=" --interval --count" ;;
		esac
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return
	fi
	case $cmd in
	stats|clusters|map|watch|dump|remove|reset)
		((nargs == 0)) && COMPREPLY=($(compgen -W "$(_thpswapctl_devs)" -- "$cur")) ;;
	help)
		((nargs == 0)) && COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
	esac
}
complete -F _thpswapctl thpswapctl
