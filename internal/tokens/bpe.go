package tokens

import "github.com/airi-go/airi/internal/tokens/internal/vocab"

// scanMax is the longest piece, in bytes, merged in place on the stack;
// longer ones (rare: long runs of spaces or symbols) take mergeHeap.
const scanMax = 128

// pieceTokens returns the number of tokens byte-pair encoding makes of
// piece: one when the piece is a token, else as many as are left once the
// adjacent pair of lowest rank, leftmost first, has been merged until no
// pair is a token.
func pieceTokens(v vocab.Vocab, piece string) int {
	if len(piece) == 1 || v.Rank(piece) != vocab.NoRank {
		// Every byte is a token.
		return 1
	}
	if len(piece) <= scanMax {
		return mergeScan(v, piece)
	}
	return mergeHeap(v, piece)
}

// mergeScan merges with a linear scan for the lowest rank, O(n²) for n
// bytes but without allocating.
func mergeScan(v vocab.Vocab, piece string) int {
	var (
		// Part k is piece[start[k]:start[k+1]]; rank[k] is the rank of
		// parts k and k+1 merged.
		start [scanMax + 1]uint8
		rank  [scanMax]uint32
	)
	n := len(piece)
	for i := range n + 1 {
		start[i] = uint8(i)
	}
	for i := range n - 1 {
		rank[i] = v.Rank(piece[i : i+2])
	}
	rank[n-1] = vocab.NoRank
	for m := n; ; m-- {
		best, k := vocab.NoRank, -1
		for i, r := range rank[:m-1] {
			if r < best {
				best, k = r, i
			}
		}
		if k < 0 {
			return m
		}
		copy(start[k+1:m], start[k+2:m+1])
		copy(rank[k+1:m-1], rank[k+2:m])
		rank[m-2] = vocab.NoRank
		if k+2 <= m-1 {
			rank[k] = v.Rank(piece[start[k]:start[k+2]])
		} else {
			rank[k] = vocab.NoRank
		}
		if k > 0 {
			rank[k-1] = v.Rank(piece[start[k-1]:start[k+1]])
		}
	}
}

// mergeNode is a part in mergeHeap's linked list; rank is that of the
// part merged with the next one.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

// mergeCandidate is a pair that may merge: the part at offset and the
// next one.
type mergeCandidate struct {
	rank   uint32
	offset int32
}

// mergeHeap merges in O(n log n) with a heap of candidate pairs, for long
// pieces. It gives the same result as mergeScan.
func mergeHeap(v vocab.Vocab, piece string) int {
	n := int32(len(piece))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: vocab.NoRank}
	}
	nodes[n].next = -1
	rankOf := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return vocab.NoRank
		}
		k := nodes[j].next
		if k < 0 {
			return vocab.NoRank
		}
		return v.Rank(piece[i:k])
	}
	h := make(candidateHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := rankOf(i); r != vocab.NoRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	h.init()
	parts := int(n)
	for len(h) > 0 {
		top := h.pop()
		i := top.offset
		if nodes[i].rank != top.rank {
			continue // stale: the pair changed since
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = vocab.NoRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		parts--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankOf(b)
			if nodes[b].rank != vocab.NoRank {
				h.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	return parts
}

// candidateHeap is a min-heap of candidates by rank, then offset, so that
// among equal ranks the leftmost pair merges first.
type candidateHeap []mergeCandidate

func (h candidateHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].offset < h[b].offset
}

func (h candidateHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candidateHeap) push(c mergeCandidate) {
	*h = append(*h, c)
	for i := len(*h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		(*h)[i], (*h)[parent] = (*h)[parent], (*h)[i]
		i = parent
	}
}

func (h *candidateHeap) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h candidateHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
