package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner"
)

// cmdParse parses model answers into actions: one answer on stdin, or with
// --jsonl one {"raw": "..."} object per line.
func (a *app) cmdParse(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	jsonl := fs.Bool("jsonl", false, `read one {"raw": "..."} object per line and write one result line per input`)
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "usage: airi parse [--jsonl] < answers")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	reg, err := actions.NewBuiltinRegistry(actions.Handlers{})
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse:", err)
		return exitFailure
	}
	p := planner.NewParser(reg)
	if *jsonl {
		if err := parseLines(ctx, p, a.stdin, a.stdout, runtime.GOMAXPROCS(0)); err != nil {
			fmt.Fprintln(a.stderr, "airi parse:", err)
			return exitFailure
		}
		return exitOK
	}
	raw, err := io.ReadAll(a.stdin)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse: read stdin:", err)
		return exitFailure
	}
	res, err := p.Parse(string(raw))
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse:", err)
		return exitFailure
	}
	out, err := appendResult(nil, res)
	if err != nil {
		fmt.Fprintln(a.stderr, "airi parse:", err)
		return exitFailure
	}
	if _, err := a.stdout.Write(out); err != nil {
		fmt.Fprintln(a.stderr, "airi parse: write:", err)
		return exitFailure
	}
	return exitOK
}

// appendResult writes the result line: {"action": {...}} plus "reasoning"
// and "notes" when present, and a newline.
func appendResult(dst []byte, res planner.Parsed) ([]byte, error) {
	act, err := res.Action.MarshalJSON()
	if err != nil {
		return dst, fmt.Errorf("encode action: %w", err)
	}
	dst = append(dst, `{"action":`...)
	dst = append(dst, act...)
	if res.Reasoning != "" {
		dst = append(dst, `,"reasoning":`...)
		dst = appendJSONString(dst, res.Reasoning)
	}
	if len(res.Notes) > 0 {
		dst = append(dst, `,"notes":[`...)
		for i, n := range res.Notes {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, n)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}', '\n'), nil
}

// appendError writes {"error": "..."} and a newline.
func appendError(dst []byte, msg string) []byte {
	dst = append(dst, `{"error":`...)
	dst = appendJSONString(dst, msg)
	return append(dst, '}', '\n')
}

func appendJSONString(dst []byte, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		return append(dst, `""`...)
	}
	return append(dst, b...)
}

// batchLines is how many input lines travel together through the
// pipeline: large enough to amortize channel traffic, small enough to keep
// both cores busy on short inputs.
const batchLines = 256

// batch is a run of input lines and, once parsed, their output.
type batch struct {
	lines [][]byte
	out   []byte
	done  chan struct{}
}

// parseLines runs the --jsonl pipeline: a reader cuts the input into
// batches, workers parse them in parallel, and the writer emits the
// batches in input order.
func parseLines(ctx context.Context, p *planner.Parser, in io.Reader, out io.Writer, workers int) error {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *batch, workers*2)
	order := make(chan *batch, workers*4)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				for _, line := range b.lines {
					b.out = parseLine(b.out, p, line)
				}
				close(b.done)
			}
		}()
	}
	readErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(work)
		readErr <- readBatches(ctx, in, work, order)
	}()
	w := bufio.NewWriterSize(out, 1<<16)
	var writeErr error
	for b := range order {
		// Every batch handed to the writer is closed by a worker or, on
		// cancellation, by the reader.
		<-b.done
		if writeErr == nil {
			if _, err := w.Write(b.out); err != nil {
				writeErr = fmt.Errorf("write: %w", err)
				cancel()
			}
		}
	}
	wg.Wait()
	if err := <-readErr; err != nil {
		return err
	}
	if writeErr != nil {
		return writeErr
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return ctx.Err()
}

// readBatches splits in into lines, sending each batch both to the
// workers and, in order, to the writer.
func readBatches(ctx context.Context, in io.Reader, work, order chan<- *batch) error {
	r := bufio.NewReaderSize(in, 1<<16)
	cur := &batch{done: make(chan struct{})}
	send := func() bool {
		select {
		case order <- cur:
		case <-ctx.Done():
			return false
		}
		select {
		case work <- cur:
		case <-ctx.Done():
			close(cur.done)
			return false
		}
		cur = &batch{done: make(chan struct{})}
		return true
	}
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			cur.lines = append(cur.lines, line)
			if len(cur.lines) == batchLines && !send() {
				return ctx.Err()
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(cur.lines) > 0 {
				send()
			}
			return fmt.Errorf("read: %w", err)
		}
	}
	if len(cur.lines) > 0 && !send() {
		return ctx.Err()
	}
	return nil
}

// parseLine handles one input line of --jsonl and appends its output line.
func parseLine(dst []byte, p *planner.Parser, line []byte) []byte {
	raw, err := rawField(line)
	if err != nil {
		return appendError(dst, err.Error())
	}
	res, err := p.Parse(raw)
	if err != nil {
		return appendError(dst, err.Error())
	}
	out, err := appendResult(dst, res)
	if err != nil {
		return appendError(dst, err.Error())
	}
	return out
}

// rawField extracts the string "raw" of an input line: the line must be
// one JSON object, and its "raw" member a string. It decodes in one pass
// without reflection because --jsonl inputs can be large.
func rawField(line []byte) (string, error) {
	d := lineDecoder{s: line}
	raw, ok := d.object()
	if ok {
		d.ws()
		ok = d.i == len(d.s)
	}
	if !ok || raw == nil {
		return "", errors.New(`input line is not a JSON object with a string "raw"`)
	}
	return *raw, nil
}

// lineDecoder is a strict JSON reader for --jsonl input lines.
type lineDecoder struct {
	s     []byte
	i     int
	depth int
}

func (d *lineDecoder) ws() {
	for d.i < len(d.s) && (d.s[d.i] == ' ' || d.s[d.i] == '\t' || d.s[d.i] == '\n' || d.s[d.i] == '\r') {
		d.i++
	}
}

// object reads the top-level object and returns its "raw" member when it
// is a string (the last one wins, as with encoding/json).
func (d *lineDecoder) object() (*string, bool) {
	d.ws()
	if d.i >= len(d.s) || d.s[d.i] != '{' {
		return nil, false
	}
	d.i++
	d.ws()
	var raw *string
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return nil, true
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, false
		}
		key, ok := d.str()
		if !ok {
			return nil, false
		}
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.ws()
		if key == "raw" {
			if d.i < len(d.s) && d.s[d.i] == '"' {
				v, ok := d.str()
				if !ok {
					return nil, false
				}
				raw = &v
			} else {
				raw = nil
				if !d.skip() {
					return nil, false
				}
			}
		} else if !d.skip() {
			return nil, false
		}
		d.ws()
		if d.i >= len(d.s) {
			return nil, false
		}
		switch d.s[d.i] {
		case ',':
			d.i++
			d.ws()
		case '}':
			d.i++
			return raw, true
		default:
			return nil, false
		}
	}
}

// skip passes over one value, checking it is well formed.
func (d *lineDecoder) skip() bool {
	if d.i >= len(d.s) {
		return false
	}
	c := d.s[d.i]
	switch {
	case c == '"':
		_, ok := d.str()
		return ok
	case c == '{' || c == '[':
		d.depth++
		if d.depth > 1000 {
			return false
		}
		defer func() { d.depth-- }()
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		d.i++
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == closing {
			d.i++
			return true
		}
		for {
			if c == '{' {
				if d.i >= len(d.s) || d.s[d.i] != '"' {
					return false
				}
				if _, ok := d.str(); !ok {
					return false
				}
				d.ws()
				if d.i >= len(d.s) || d.s[d.i] != ':' {
					return false
				}
				d.i++
				d.ws()
			}
			if !d.skip() {
				return false
			}
			d.ws()
			if d.i >= len(d.s) {
				return false
			}
			if d.s[d.i] == closing {
				d.i++
				return true
			}
			if d.s[d.i] != ',' {
				return false
			}
			d.i++
			d.ws()
		}
	case c == '-' || (c >= '0' && c <= '9'):
		start := d.i
		for d.i < len(d.s) && strings.IndexByte("+-0123456789.eE", d.s[d.i]) >= 0 {
			d.i++
		}
		var n json.Number = json.Number(d.s[start:d.i])
		_, err := n.Float64()
		return err == nil
	case bytes.HasPrefix(d.s[d.i:], []byte("true")):
		d.i += 4
		return true
	case bytes.HasPrefix(d.s[d.i:], []byte("false")):
		d.i += 5
		return true
	case bytes.HasPrefix(d.s[d.i:], []byte("null")):
		d.i += 4
		return true
	}
	return false
}

// str decodes the string at d.i; strings without escapes are converted
// in one copy, others through encoding/json.
func (d *lineDecoder) str() (string, bool) {
	start := d.i + 1
	i := start
	escaped := false
	for i < len(d.s) {
		c := d.s[i]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		if c == '\\' {
			escaped = true
			i++
		}
		i++
	}
	if i >= len(d.s) {
		return "", false
	}
	d.i = i + 1
	if !escaped {
		return string(d.s[start:i]), true
	}
	var out string
	if err := json.Unmarshal(d.s[start-1:i+1], &out); err != nil {
		return "", false
	}
	return out, true
}
