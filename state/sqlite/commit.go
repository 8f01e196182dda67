package sqlite

import (
	"context"
	"database/sql"
	"runtime"
	"sync"

	"go.uber.org/zap"
)

// Group commit. Most writes of a tick are one small statement each (a
// message stored, a read mark, an outbox entry, an action or tick record),
// and committing one costs more than running it: the pages it touched go
// to the WAL as frames, the WAL index is updated, locks are taken and
// released. The writes of many channels arrive together, so the writes
// that wait for the writer connection run in one SQLite transaction and
// are committed once:
//
//   - the first caller to find no batch running runs the batch: its own
//     write and those that queued meanwhile; the first write that queued
//     behind that batch runs the next one, and so on, so that no caller
//     runs more than one batch however many writes keep arriving; the
//     others wait for their outcome;
//   - before it takes the writes queued, the caller running a batch
//     yields the processor once, so that the goroutines ready to run
//     (other channels' loops, most often about to write) add theirs: a
//     commit costs about the same whatever it carries, and in a burst
//     this halves the commits;
//   - a caller returns only once its write is committed, as before;
//   - when one write of a batch fails, or the commit does, the
//     transaction is rolled back and each of its writes runs again in a
//     transaction of its own, so that no write fails or is lost because
//     of another one;
//   - a write runs to its end once started: it is not interrupted when
//     its caller's context ends (a caller whose context ended before its
//     turn gets the context's error and nothing is written).
//
// BenchmarkRuntimeTick and airi bench --burst measure what it saves.
//
// A write given to batch must do nothing besides its statements that
// running it a second time would repeat (such as appending to a caller's
// slice): it runs again after its batch was rolled back.

// maxBatch bounds the writes committed together, so that a caller's wait
// stays short while others keep arriving.
const maxBatch = 64

// txFunc is the work of one write transaction. Its ctx is the caller's,
// without its cancellation.
type txFunc func(ctx context.Context, tx *sql.Tx) error

// writeReq is one write waiting for the writer.
type writeReq struct {
	ctx context.Context
	fn  txFunc
	// alone, when set, does the work of fn outside a transaction: a
	// single statement runs cheaper on its own than between BEGIN and
	// COMMIT.
	alone func(ctx context.Context) error
	// apply, when set, applies the committed write to the memo; it is
	// called with the memo's lock held, after fn (or alone) ran.
	apply func(m *memo)
	done  chan error
	// lead tells a write waiting in the queue to run the next batch.
	lead chan struct{}
}

// batcher queues the writes that arrive while a batch runs.
type batcher struct {
	mu      sync.Mutex
	on      bool // set once Open is done: migrations run alone
	running bool
	queue   []*writeReq
}

// batch runs fn in a write transaction that it may share with other
// writes arriving at the same time (see Group commit), and returns once
// it is committed or has failed.
func (s *Store) batch(ctx context.Context, fn txFunc) error {
	return s.enqueue(&writeReq{ctx: ctx, fn: fn})
}

// batchApply is batch for a write that changes what the memo keeps:
// apply applies it once committed (see writeReq.apply).
func (s *Store) batchApply(ctx context.Context, fn txFunc, apply func(m *memo)) error {
	return s.enqueue(&writeReq{ctx: ctx, fn: fn, apply: apply})
}

// batchStmt is batch for one statement: st, prepared on the writer, run
// with args by run; apply, when not nil, as in batchApply.
func (s *Store) batchStmt(ctx context.Context, st *sql.Stmt, run func(ctx context.Context, st *sql.Stmt) error, apply func(m *memo)) error {
	return s.enqueue(&writeReq{ctx: ctx, apply: apply,
		fn: func(ctx context.Context, tx *sql.Tx) error {
			s.stats.stmts.Add(1)
			return run(ctx, tx.StmtContext(ctx, st))
		},
		alone: func(ctx context.Context) error {
			s.stats.stmts.Add(1)
			s.stats.writes.Add(1)
			return run(ctx, st)
		},
	})
}

func (s *Store) enqueue(r *writeReq) error {
	ctx := r.ctx
	if err := ctx.Err(); err != nil {
		return err
	}
	b := &s.batcher
	r.done = make(chan error, 1)
	r.lead = make(chan struct{}, 1)
	b.mu.Lock()
	if !b.on {
		b.mu.Unlock()
		return s.commitOne(r)
	}
	b.queue = append(b.queue, r)
	if b.running {
		b.mu.Unlock()
		select {
		case err := <-r.done:
			return err
		case <-r.lead:
			// Handed the next batch, which starts with this write.
		}
		b.mu.Lock()
	}
	b.running = true
	b.mu.Unlock()
	runtime.Gosched()
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	batch := b.queue[:n:n]
	b.queue = b.queue[n:]
	b.mu.Unlock()
	s.commit(batch)
	b.mu.Lock()
	if len(b.queue) > 0 {
		// The first write waiting runs the next batch: no caller runs
		// more than one, however many writes keep arriving.
		b.queue[0].lead <- struct{}{}
	} else {
		b.running = false
		b.queue = nil
	}
	b.mu.Unlock()
	return <-r.done
}

// commit runs one batch and answers each of its callers. The memo learns
// of each write committed before any later commit (wmu).
func (s *Store) commit(batch []*writeReq) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	live := make([]*writeReq, 0, len(batch))
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- err
			continue
		}
		live = append(live, r)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		live[0].done <- s.commitOne(live[0])
		return
	}
	if err := s.commitMany(live); err != nil {
		s.logger.Debug("a batch of writes was rolled back; running each alone", zap.Int("writes", len(live)), zap.Error(err))
		for _, r := range live {
			r.done <- s.commitOne(r)
		}
		return
	}
	s.health.observe(nil)
	s.applied(live...)
	s.checkOthers(context.Background())
	for _, r := range live {
		r.done <- nil
	}
}

// applied applies committed writes to the memo.
func (s *Store) applied(rs ...*writeReq) {
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	for _, r := range rs {
		if r.apply != nil {
			r.apply(&s.memo)
		}
	}
}

// commitOne runs one write in a transaction of its own.
func (s *Store) commitOne(r *writeReq) error {
	ctx := context.WithoutCancel(r.ctx)
	var err error
	if r.alone != nil && !s.memoOff() {
		err = r.alone(ctx)
		s.health.observe(err)
	} else {
		err = s.write(ctx, func(tx *sql.Tx) error { return r.fn(ctx, tx) })
	}
	if err == nil {
		s.applied(r)
		if r.alone == nil || s.memoOff() {
			s.checkOthers(ctx)
		}
	}
	return err
}

// commitMany runs writes in one transaction and commits it; on the first
// error it rolls everything back.
func (s *Store) commitMany(live []*writeReq) error {
	s.stats.writes.Add(1)
	tx, err := s.writer.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	for _, r := range live {
		if err := r.fn(context.WithoutCancel(r.ctx), tx); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}
