# SPDX-License-Identifier: GPL-2.0
#
# bench/plot.gp: a clustered bar chart with min-max error bars, drawn by
# bench/report.py for make bench:
#
#   gnuplot -e "data='F'; out='PNG'; n=N; ttl='TITLE'; ylab='LABEL'
#               [; cols='#rrggbb ...'; dens='0.9 ...'; logy=1]" bench/plot.gp
#
# data: a header line, then one line per cluster: a quoted label, then n
# triplets "median min max", one per bar; the header's column 2 + 3i names
# bar i.  cols and dens: bar i's colour and fill density (word i + 1);
# logy: logarithmic y axis.

set terminal pngcairo size 1400,720 font ",10" noenhanced
set output out
set title ttl
set ylabel ylab
if (exists("logy") && logy) {
	set logscale y
	set yrange [*:*]
} else {
	set yrange [0:*]
}
set grid ytics
set key outside right top vertical
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics nomirror
set bmargin 5
set datafile separator whitespace
if (!exists("cols")) cols = ""
if (!exists("dens")) dens = ""
color(i) = words(cols) > i ? word(cols, i + 1) : "gray40"
density(i) = words(dens) > i ? real(word(dens, i + 1)) : 0.85
plot for [i=0:n-1] data \
	using (column(2 + 3 * i)):(column(3 + 3 * i)):(column(4 + 3 * i)):xtic(1) \
	lc rgb color(i) fs solid density(i) border -1 title columnheader(2 + 3 * i)
