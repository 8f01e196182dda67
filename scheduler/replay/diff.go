package replay

import (
	"fmt"
	"strings"

	"github.com/airi-go/airi/state"
)

// maxDiffCells bounds the table of the line diff; inputs whose changed
// middle is larger are reported as one replaced block.
const maxDiffCells = 4 << 20

type op struct {
	kind byte // ' ', '-', '+'
	text string
}

// RequestDiff returns the unified diff turning request a into request b,
// the way airi replay --prompts prints a prompt change: each message
// headed by its number and role, three lines of context; "" when equal.
func RequestDiff(a, b []state.ChatMessage, fromName, toName string) string {
	return Unified(renderRequest(a), renderRequest(b), fromName, toName, 3)
}

// Unified returns a unified diff (as diff -u prints it) turning a into b,
// with ctx lines of context around each change, or "" when they are equal.
func Unified(a, b []string, fromName, toName string, ctx int) string {
	ops := lineOps(a, b)
	changed := false
	for _, o := range ops {
		if o.kind != ' ' {
			changed = true
			break
		}
	}
	if !changed {
		return ""
	}
	var w strings.Builder
	fmt.Fprintf(&w, "--- %s\n+++ %s\n", fromName, toName)
	// Walk the ops, cutting hunks where more than 2*ctx equal lines separate changes.
	ai, bi := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, o := range ops {
		ai[i+1], bi[i+1] = ai[i], bi[i]
		if o.kind != '+' {
			ai[i+1]++
		}
		if o.kind != '-' {
			bi[i+1]++
		}
	}
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		fmt.Fprintf(&w, "@@ -%s +%s @@\n", span(ai[start], ai[end]-ai[start]), span(bi[start], bi[end]-bi[start]))
		for _, o := range ops[start:end] {
			w.WriteByte(o.kind)
			w.WriteString(o.text)
			w.WriteByte('\n')
		}
		i = end
	}
	return w.String()
}

func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// lineOps is the edit script from a to b: the common prefix and suffix,
// and a longest-common-subsequence diff of the middle.
func lineOps(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for _, s := range a[:pre] {
		ops = append(ops, op{' ', s})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if (len(ma)+1)*(len(mb)+1) > maxDiffCells {
		for _, s := range ma {
			ops = append(ops, op{'-', s})
		}
		for _, s := range mb {
			ops = append(ops, op{'+', s})
		}
	} else {
		ops = append(ops, lcsOps(ma, mb)...)
	}
	for _, s := range a[len(a)-suf:] {
		ops = append(ops, op{' ', s})
	}
	return ops
}

func lcsOps(a, b []string) []op {
	n, m := len(a), len(b)
	// l[i][j] is the LCS length of a[i:] and b[j:].
	l := make([][]int32, n+1)
	for i := range l {
		l[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case l[i+1][j] >= l[i][j+1]:
			ops = append(ops, op{'-', a[i]})
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, op{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, op{'+', b[j]})
	}
	return ops
}
