// Package vocab holds the o200k vocabulary in a form that costs nothing to
// load: the token bytes and an open-addressing hash table over them, both
// embedded in the binary and read in place.
//
// The vocabulary is two files written by Build (see ../genvocab):
//
//   - o200k.tokens: the bytes of every token concatenated in rank order.
//     A token's offset in this file therefore orders tokens exactly as
//     their ranks do, which is all byte-pair merging needs.
//   - o200k.table: TableSize little-endian uint32 slots. An empty slot is 0;
//     a full one packs the token's offset plus one (21 bits), its length
//     minus one (7 bits) and 4 more bits of its hash, so that most probes
//     that miss are rejected without reading the token bytes.
package vocab

import (
	_ "embed"
	"errors"
	"fmt"
)

//go:generate go run ../genvocab

//go:embed o200k.tokens
var embeddedTokens string

//go:embed o200k.table
var embeddedTable string

// Layout of the table.
const (
	// TableBits is log2 of the number of slots: 2^18 slots for 199,998
	// tokens keep the table at 1 MB.
	TableBits = 18
	// TableSize is the number of slots.
	TableSize = 1 << TableBits
	// MaxLen is the length in bytes of the longest token the layout can
	// hold.
	MaxLen = 1 << lenBits

	offsetBits = 21
	lenBits    = 7
	offsetMask = 1<<offsetBits - 1
	// keyMask covers what a probe compares before reading bytes: the
	// length and the hash bits.
	keyMask = ^uint32(offsetMask)
)

// NoRank is what Rank returns for bytes that are not a token.
const NoRank = ^uint32(0)

// Vocab is a read-only o200k vocabulary. The zero value is empty.
type Vocab struct {
	tokens string
	table  string
}

// Embedded returns the vocabulary built into the binary.
func Embedded() Vocab {
	return Vocab{tokens: embeddedTokens, table: embeddedTable}
}

// Rank returns a number that orders the token b among the others as its
// o200k rank does (its offset in the token bytes), or NoRank when b is not
// a token.
func (v Vocab) Rank(b string) uint32 {
	if len(b) == 0 || len(b) > MaxLen || len(v.table) != 4*TableSize {
		return NoRank
	}
	h := Hash(b)
	want := key(len(b), h)
	for i := slot(h); ; i = (i + 1) & (TableSize - 1) {
		e := v.entry(i)
		if e == 0 {
			return NoRank
		}
		if e&keyMask != want {
			continue
		}
		off := int(e&offsetMask) - 1
		if v.tokens[off:off+len(b)] == b {
			return uint32(off)
		}
	}
}

// entry returns slot i of the table.
func (v Vocab) entry(i int) uint32 {
	t := v.table[4*i : 4*i+4]
	return uint32(t[0]) | uint32(t[1])<<8 | uint32(t[2])<<16 | uint32(t[3])<<24
}

// Hash returns the 64-bit hash of b the table is laid out with. It is
// part of the file format: changing it needs the files regenerated.
func Hash(b string) uint64 {
	const (
		k0 = 0x9e3779b97f4a7c15
		k1 = 0xbf58476d1ce4e5b9
		k2 = 0x94d049bb133111eb
	)
	h := uint64(len(b)) * k0
	for len(b) >= 8 {
		h = mix(h^load64(b), k1)
		b = b[8:]
	}
	switch {
	case len(b) >= 4:
		h = mix(h^(load32(b)|load32(b[len(b)-4:])<<32), k1)
	case len(b) > 0:
		h = mix(h^(uint64(b[0])|uint64(b[len(b)/2])<<8|uint64(b[len(b)-1])<<16), k1)
	}
	return mix(h, k2)
}

func mix(h, k uint64) uint64 {
	h *= k
	return h ^ h>>31
}

func load64(b string) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func load32(b string) uint64 {
	_ = b[3]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
}

// slot is the first slot probed for hash h.
func slot(h uint64) int {
	return int(h >> (64 - TableBits))
}

// key is what a slot holds above the offset for a token of n bytes and
// hash h.
func key(n int, h uint64) uint32 {
	return uint32(n-1)<<offsetBits | uint32(h&0xf)<<(offsetBits+lenBits)
}

// Build lays out tokens, given in rank order, as the two files of a
// vocabulary.
func Build(tokens []string) (tokenBytes, table []byte, err error) {
	var size int
	for r, t := range tokens {
		if len(t) == 0 || len(t) > MaxLen {
			return nil, nil, fmt.Errorf("token %d is %d bytes, want 1 to %d", r, len(t), MaxLen)
		}
		size += len(t)
	}
	if size >= offsetMask {
		return nil, nil, fmt.Errorf("tokens take %d bytes, more than the %d the table can address", size, offsetMask-1)
	}
	if len(tokens) > TableSize*4/5 {
		return nil, nil, errors.New("too many tokens for the table")
	}
	seen := make(map[string]int, len(tokens))
	for r, t := range tokens {
		if prev, ok := seen[t]; ok {
			return nil, nil, fmt.Errorf("token %d (%q) is also token %d", r, t, prev)
		}
		seen[t] = r
	}
	tokenBytes = make([]byte, 0, size)
	table = make([]byte, 4*TableSize)
	for _, t := range tokens {
		off := len(tokenBytes)
		tokenBytes = append(tokenBytes, t...)
		h := Hash(t)
		i := slot(h)
		for table[4*i]|table[4*i+1]|table[4*i+2]|table[4*i+3] != 0 {
			i = (i + 1) & (TableSize - 1)
		}
		e := key(len(t), h) | uint32(off+1)
		table[4*i], table[4*i+1], table[4*i+2], table[4*i+3] = byte(e), byte(e>>8), byte(e>>16), byte(e>>24)
	}
	return tokenBytes, table, nil
}
