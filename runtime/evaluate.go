package runtime

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/scheduler/eval"
)

// EvalOptions tune Evaluate.
type EvalOptions struct {
	// Concurrency bounds the runs played at once and the model calls of
	// all of them together (at least 1).
	Concurrency int
	// Play tunes how each session is played.
	Play eval.Options
	// OnRun, when set, is called once each run ends, from one goroutine
	// at a time.
	OnRun  func()
	Logger *zap.Logger
}

// Evaluate plays every session of every variant of res res.Runs times
// against model, each run on a bot of its own (EvalOpener) built with
// the variant's configuration (variants[i] for res.Variants[i]), and
// files each run or its failure under its session. It reports whether a
// run failed; when ctx ends the runs so far are kept and res.Partial set.
func Evaluate(ctx context.Context, res *eval.Result, variants []Config, model planner.Model, opt EvalOptions) (failed bool) {
	type job struct{ variant, session, run int }
	conc := max(opt.Concurrency, 1)
	limited := &limitedModel{m: model, sem: make(chan struct{}, conc)}
	// Each slot is written by one worker only.
	done := make([][][]*eval.Run, len(res.Variants))
	fails := make([][][]string, len(res.Variants))
	for v, vr := range res.Variants {
		done[v] = make([][]*eval.Run, len(vr.Sessions))
		fails[v] = make([][]string, len(vr.Sessions))
		for s := range vr.Sessions {
			done[v][s] = make([]*eval.Run, res.Runs)
			fails[v][s] = make([]string, res.Runs)
		}
	}
	// The jobs run variant by variant, session by session, as listed.
	var ordered []job
	for v := range res.Variants {
		for s := range res.Variants[v].Sessions {
			for r := range res.Runs {
				ordered = append(ordered, job{variant: v, session: s, run: r})
			}
		}
	}
	queue := make(chan job)
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range min(conc, len(ordered)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				s := res.Variants[j.variant].Sessions[j.session]
				open := EvalOpener(variants[j.variant], limited, opt.Logger)
				run, err := eval.Play(ctx, s.Session, open, opt.Play)
				switch {
				case ctx.Err() != nil:
				case err != nil:
					fails[j.variant][j.session][j.run] = fmt.Sprintf("run %d: %v", j.run+1, err)
				default:
					done[j.variant][j.session][j.run] = run
				}
				if opt.OnRun != nil {
					mu.Lock()
					opt.OnRun()
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for _, j := range ordered {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	res.Partial = ctx.Err() != nil
	for v, vr := range res.Variants {
		for s, sr := range vr.Sessions {
			for r := range res.Runs {
				if run := done[v][s][r]; run != nil {
					sr.Runs = append(sr.Runs, run)
				}
				if f := fails[v][s][r]; f != "" {
					sr.Errors = append(sr.Errors, f)
					failed = true
				}
			}
		}
	}
	return failed
}

// limitedModel bounds the model calls of every run together; each bot's
// scheduler bounds only its own.
type limitedModel struct {
	m   planner.Model
	sem chan struct{}
}

func (l *limitedModel) Complete(ctx context.Context, req planner.Request) (planner.Response, error) {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return planner.Response{}, ctx.Err()
	}
	defer func() { <-l.sem }()
	return l.m.Complete(ctx, req)
}
