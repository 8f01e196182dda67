package vocab

import (
	"strings"
	"testing"
)

func TestEmbeddedFindsEveryToken(t *testing.T) {
	v := Embedded()
	n, probes, covered := 0, 0, 0
	for i := range TableSize {
		e := v.entry(i)
		if e == 0 {
			continue
		}
		n++
		off, size := int(e&offsetMask)-1, int(e>>offsetBits&(1<<lenBits-1))+1
		covered += size
		tok := v.tokens[off : off+size]
		if got := v.Rank(tok); got != uint32(off) {
			t.Fatalf("Rank(%q) = %d, want %d", tok, got, off)
		}
		probes += (i-slot(Hash(tok)))&(TableSize-1) + 1
	}
	if n != 199_998 {
		t.Errorf("table holds %d tokens, want 199998", n)
	}
	if covered != len(v.tokens) {
		t.Errorf("tokens cover %d bytes, want all %d", covered, len(v.tokens))
	}
	t.Logf("%d tokens, %.2f probes per hit on average", n, float64(probes)/float64(n))
}

func TestRankOrdersByRank(t *testing.T) {
	v := Embedded()
	// "!" is rank 0, " the" a low rank, "Cursos" rank 199996.
	bang, the, cursos := v.Rank("!"), v.Rank(" the"), v.Rank("Cursos")
	if bang != 0 || !(bang < the && the < cursos) || cursos == NoRank {
		t.Errorf("ranks of !, the, Cursos = %d, %d, %d: want increasing from 0", bang, the, cursos)
	}
	for _, s := range []string{"", "qqqqzzzzqqqq", strings.Repeat("a", MaxLen+1), "<|endoftext|>"} {
		if got := v.Rank(s); got != NoRank {
			t.Errorf("Rank(%q) = %d, want NoRank", s, got)
		}
	}
	if got := (Vocab{}).Rank("a"); got != NoRank {
		t.Errorf("empty vocabulary: Rank = %d, want NoRank", got)
	}
}

func BenchmarkRank(b *testing.B) {
	v := Embedded()
	var words []string
	for _, w := range strings.Fields("hello world the quick brown fox jumps over the lazy dog qz xq 你好 привет") {
		words = append(words, w, " "+w)
	}
	for b.Loop() {
		for _, w := range words {
			v.Rank(w)
		}
	}
}
