// Package jsonl writes parsed answers as JSON lines, the output of
// `airi parse`: one answer, or a stream of {"raw": "..."} lines parsed on
// every core and written back in input order.
package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/airi-go/airi/actions"
	"github.com/airi-go/airi/planner/parse"
)

// Pipeline parses answers and writes result lines. It is safe for
// concurrent use.
type Pipeline struct {
	p   *parse.Parser
	enc *actionEncoder
	// line handles one input line of Run; BenchmarkPipeline swaps in an
	// encoding/json version to compare.
	line func(dst, line []byte) []byte
	// finish is how answers ended whose line names no "finish".
	finish parse.Finish
}

// New returns a pipeline for the actions of reg.
func New(reg *actions.Registry) *Pipeline {
	lp := &Pipeline{p: parse.New(reg), enc: newActionEncoder(reg)}
	lp.line = lp.parseLine
	return lp
}

// SetFinish says how the answers ended that do not say so themselves (a
// --jsonl line without "finish", and Parse). Call it before Run.
func (lp *Pipeline) SetFinish(f parse.Finish) { lp.finish = f }

// Parse parses one answer.
func (lp *Pipeline) Parse(raw string) (parse.Result, error) { return lp.p.ParseEnded(raw, lp.finish) }

// AppendResult writes the result line: {"action": {...}} plus "reasoning"
// and "notes" when present, and a newline.
func (lp *Pipeline) AppendResult(dst []byte, res parse.Result) ([]byte, error) {
	dst = append(dst, `{"action":`...)
	var err error
	if dst, err = lp.enc.appendAction(dst, res.Action); err != nil {
		return dst, fmt.Errorf("encode action: %w", err)
	}
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

// chunkSize is how much input travels together through the pipeline:
// large enough to amortize channel traffic, small enough to keep both
// cores busy on short inputs. A chunk always ends at a line break.
const chunkSize = 32 << 10

// chunk is a run of whole input lines and, once parsed, their output.
type chunk struct {
	in   []byte
	out  []byte
	done chan struct{}
}

// Run runs the --jsonl pipeline: a reader cuts the input into
// chunks of whole lines, workers parse chunks in parallel, and the writer
// emits their output in input order.
func (lp *Pipeline) Run(ctx context.Context, in io.Reader, out io.Writer, workers int) error {
	if workers < 1 {
		workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *chunk, workers*2)
	order := make(chan *chunk, workers*4)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range work {
				c.out = lp.parseChunk(c.out, c.in)
				close(c.done)
			}
		}()
	}
	// Chunk buffers are recycled once written: nothing parsed from a chunk
	// outlives its output.
	var buffers sync.Pool
	readErr := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(work)
		readErr <- readChunks(ctx, in, work, order, &buffers)
	}()
	w := bufio.NewWriterSize(out, 1<<16)
	var writeErr error
	for c := range order {
		// Every chunk handed to the writer is closed by a worker or, on
		// cancellation, by the reader.
		<-c.done
		if writeErr == nil {
			if _, err := w.Write(c.out); err != nil {
				writeErr = fmt.Errorf("write: %w", err)
				cancel()
			}
		}
		in, out := c.in[:0], c.out[:0]
		buffers.Put(&in)
		buffers.Put(&out)
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

// readChunks cuts in into chunks of whole lines and sends each both to
// the workers and, in order, to the writer.
func readChunks(ctx context.Context, in io.Reader, work, order chan<- *chunk, buffers *sync.Pool) error {
	// A small buffer: whole chunks are read straight into their own
	// memory, only the tail of a chunk's last line goes through it.
	r := bufio.NewReaderSize(in, 4<<10)
	send := func(c *chunk) bool {
		select {
		case order <- c:
		case <-ctx.Done():
			return false
		}
		select {
		case work <- c:
			return true
		case <-ctx.Done():
			close(c.done)
			return false
		}
	}
	for {
		var buf []byte
		if b, ok := buffers.Get().(*[]byte); ok && cap(*b) >= chunkSize {
			buf = (*b)[:chunkSize]
		} else {
			buf = make([]byte, chunkSize, chunkSize+chunkSize/4)
		}
		n, err := io.ReadFull(r, buf)
		buf = buf[:n]
		if err == nil && buf[n-1] != '\n' {
			// Finish the last line so that no line spans two chunks.
			rest, rerr := r.ReadBytes('\n')
			buf = append(buf, rest...)
			if rerr != nil && !errors.Is(rerr, io.EOF) {
				err = rerr
			}
		}
		var out []byte
		if b, ok := buffers.Get().(*[]byte); ok {
			out = *b
		}
		if len(buf) > 0 && !send(&chunk{in: buf, out: out, done: make(chan struct{})}) {
			return ctx.Err()
		}
		switch {
		case err == nil:
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		default:
			return fmt.Errorf("read: %w", err)
		}
	}
}

// parseChunk parses every line of in and appends the output lines.
func (lp *Pipeline) parseChunk(dst []byte, in []byte) []byte {
	if cap(dst) < len(in)+len(in)/4 {
		dst = make([]byte, 0, len(in)+len(in)/2)
	}
	for len(in) > 0 {
		line := in
		if k := bytes.IndexByte(in, '\n'); k >= 0 {
			line, in = in[:k], in[k+1:]
		} else {
			in = nil
		}
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		dst = lp.line(dst, line)
	}
	return dst
}

// parseLine handles one input line of --jsonl and appends its output line.
func (lp *Pipeline) parseLine(dst []byte, line []byte) []byte {
	raw, name, err := rawField(line)
	if err != nil {
		return appendError(dst, err.Error())
	}
	finish := lp.finish
	if name != "" {
		if finish, err = parse.ParseFinish(name); err != nil {
			return appendError(dst, err.Error())
		}
	}
	res, err := lp.p.ParseEnded(raw, finish)
	if err != nil {
		return appendError(dst, err.Error())
	}
	mark := len(dst)
	out, err := lp.AppendResult(dst, res)
	if err != nil {
		return appendError(out[:mark], err.Error())
	}
	return out
}
