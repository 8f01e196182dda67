// Command genvocab writes the o200k vocabulary files of package vocab from
// the vocabulary of github.com/tiktoken-go/tokenizer, the reference the
// counter must agree with. Run it with go generate in ../vocab.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/airi-go/airi/internal/tokens/internal/vocab"
)

func main() {
	dir := flag.String("dir", ".", "directory to write o200k.tokens and o200k.table to")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintf(os.Stderr, "genvocab: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	tokenBytes, table, err := generate()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "o200k.tokens"), tokenBytes, 0o644); err != nil {
		return fmt.Errorf("write tokens: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "o200k.table"), table, 0o644); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// generate returns the two vocabulary files.
func generate() (tokenBytes, table []byte, err error) {
	tokens, err := o200kTokens()
	if err != nil {
		return nil, nil, err
	}
	tokenBytes, table, err = vocab.Build(tokens)
	if err != nil {
		return nil, nil, fmt.Errorf("build vocabulary: %w", err)
	}
	return tokenBytes, table, nil
}

// o200kTokens returns the o200k tokens in rank order. Ranks are dense from
// 0; the first rank that decodes to nothing ends the list (the special
// tokens, kept apart, are not counted as text).
func o200kTokens() ([]string, error) {
	c := codec.NewO200kBase()
	c.SetErrorMode(codec.ErrorModeNone)
	var tokens []string
	for rank := uint(0); ; rank++ {
		t, err := c.Decode([]uint{rank})
		if err != nil {
			break
		}
		tokens = append(tokens, t)
	}
	if len(tokens) < 199_000 {
		return nil, fmt.Errorf("o200k decoded %d tokens, want about 200,000", len(tokens))
	}
	return tokens, nil
}
