package satori

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/zap"

	"github.com/airi-go/airi/adapters"
	"github.com/airi-go/airi/internal/backoff"
)

// maxFrame bounds one signal on the event stream.
const maxFrame = 8 << 20

// Run connects, identifies, then receives events and delivers messages to
// inbox one at a time until ctx ends. A first connection that fails (bad
// URL, refused connection, rejected token) returns its error at once;
// later disconnects are retried with capped, jittered backoff, resuming
// from the last sequence number delivered. Run returns nil when ctx ends.
func (a *Adapter) Run(ctx context.Context, inbox adapters.Inbox) error {
	if err := a.loadCursor(ctx); err != nil {
		return err
	}
	// Keep-alive connections of the API client die with the adapter.
	defer a.http.CloseIdleConnections()
	first := true
	failures := 0
	for {
		ready, err := a.session(ctx, inbox)
		if ctx.Err() != nil {
			return nil
		}
		a.link.Down(err)
		if first && !ready {
			return fmt.Errorf("satori: connect %s: %w", a.cfg.WSURL, err)
		}
		first = false
		// A connection that got as far as READY starts the backoff over,
		// unless the inbox refused a message: a store that keeps failing
		// must not be hammered with the same event every MinBackoff.
		if ready && !errors.Is(err, errDeliver) {
			failures = 0
		}
		failures++
		wait := a.retry().Delay(failures, 0)
		a.log.Warn("event stream lost, reconnecting", zap.Error(err), zap.Duration("in", wait))
		if backoff.Sleep(ctx, wait) != nil {
			return nil
		}
	}
}

// retry spaces reconnects and send retries: a window from MinBackoff
// doubling up to MaxBackoff, each wait drawn from its upper half.
func (a *Adapter) retry() backoff.Policy {
	return backoff.Policy{Min: a.cfg.MinBackoff, Max: a.cfg.MaxBackoff, Jitter: backoff.EqualJitter}
}

func (a *Adapter) loadCursor(ctx context.Context) error {
	if a.cursors == nil {
		return nil
	}
	v, err := a.cursors.Cursor(ctx, a.key)
	if err != nil {
		return fmt.Errorf("satori: load cursor: %w", err)
	}
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		a.log.Warn("ignoring unreadable stored sequence number", zap.String("value", v))
		return nil
	}
	a.mu.Lock()
	a.seq, a.hasSeq = n, true
	a.mu.Unlock()
	return nil
}

// lastSeq returns the sequence number to resume from.
func (a *Adapter) lastSeq() (int64, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.seq, a.hasSeq
}

// advance records that the event with sequence number n was processed.
func (a *Adapter) advance(ctx context.Context, n int64) {
	a.mu.Lock()
	a.seq, a.hasSeq = n, true
	a.mu.Unlock()
	if a.cursors == nil {
		return
	}
	// The message is stored: record its position even when shutdown has
	// begun, so that a restart does not receive it again.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.HTTPTimeout)
	defer cancel()
	if err := a.cursors.SetCursor(ctx, a.key, strconv.FormatInt(n, 10)); err != nil {
		// The event is stored; a restart may receive it again and the
		// store drops the duplicate.
		a.log.Warn("store sequence number", zap.Int64("sn", n), zap.Error(err))
	}
}

// session runs one connection. ready reports whether READY was received.
func (a *Adapter) session(ctx context.Context, inbox adapters.Inbox) (ready bool, err error) {
	dialCtx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	conn, resp, err := websocket.Dial(dialCtx, a.cfg.WSURL, &websocket.DialOptions{HTTPClient: a.http})
	cancel()
	if err != nil {
		if resp != nil {
			return false, fmt.Errorf("handshake: http %d: %w", resp.StatusCode, err)
		}
		return false, fmt.Errorf("dial: %w", err)
	}
	conn.SetReadLimit(maxFrame)
	defer conn.CloseNow()

	id := identifyBody{Token: a.cfg.Token}
	if n, ok := a.lastSeq(); ok {
		id.SN, id.Sequence = &n, &n
	}
	if err := a.write(ctx, conn, opIdentify, id); err != nil {
		return false, fmt.Errorf("identify: %w", err)
	}

	// READY must come within the handshake timeout.
	readyCtx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	for !ready {
		p, err := a.read(readyCtx, conn)
		if err != nil {
			cancel()
			if s := websocket.CloseStatus(err); s != -1 {
				return false, fmt.Errorf("server closed the connection before READY (status %d %q; check the token and the URL path): %w", s, closeReason(err), err)
			}
			return false, fmt.Errorf("wait for READY: %w", err)
		}
		if p.Op == opReady {
			if err := a.onReady(ctx, p.Body); err != nil {
				cancel()
				return false, err
			}
			ready = true
		}
	}
	cancel()
	a.link.Up()

	// The pinger owns the heartbeat; it is waited for before returning.
	connCtx, stop := context.WithCancel(ctx)
	// alive receives a signal for every frame read: any frame proves the
	// connection alive, not only a PONG. busy is set while a message is
	// being delivered, when frames are not read.
	alive := make(chan struct{}, 1)
	var busy atomic.Bool
	dead := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := a.heartbeat(connCtx, conn, alive, &busy); err != nil {
			dead <- err
			conn.CloseNow()
		}
	}()
	defer func() {
		stop()
		wg.Wait()
		select {
		case derr := <-dead:
			err = derr
		default:
		}
	}()

	for {
		p, err := a.read(connCtx, conn)
		if err != nil {
			return true, fmt.Errorf("read: %w", err)
		}
		select {
		case alive <- struct{}{}:
		default:
		}
		switch p.Op {
		case opPong:
		case opEvent:
			busy.Store(true)
			err := a.onEvent(connCtx, inbox, p.Body)
			a.saveLogins(connCtx)
			busy.Store(false)
			if err != nil {
				return true, err
			}
		case opReady:
			if err := a.onReady(connCtx, p.Body); err != nil {
				return true, err
			}
		case opMeta:
			a.log.Debug("meta signal ignored")
		default:
			a.log.Debug("unknown signal ignored", zap.Int("op", p.Op))
		}
	}
}

func closeReason(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Reason
	}
	return ""
}

// errDeliver marks a session ended because the inbox refused a message.
var errDeliver = errors.New("deliver message")

// errNoPong reports a connection whose PING went unanswered.
var errNoPong = errors.New("no PONG in time: connection is dead")

// heartbeat sends a PING every PingInterval and fails when no frame
// follows within PongTimeout. Time spent delivering a message does not
// count: the reader is not reading then.
func (a *Adapter) heartbeat(ctx context.Context, conn *websocket.Conn, alive <-chan struct{}, busy *atomic.Bool) error {
	tick := time.NewTimer(a.cfg.PingInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		select { // a frame of the previous round does not count
		case <-alive:
		default:
		}
		if err := a.write(ctx, conn, opPing, struct{}{}); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("ping: %w", err)
		}
		if err := a.awaitPong(ctx, alive, busy); err != nil {
			return err
		}
		tick.Reset(a.cfg.PingInterval)
	}
}

func (a *Adapter) awaitPong(ctx context.Context, alive <-chan struct{}, busy *atomic.Bool) error {
	wait := time.NewTimer(a.cfg.PongTimeout)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-alive:
			return nil
		case <-wait.C:
			if !busy.Load() {
				return errNoPong
			}
			wait.Reset(a.cfg.PongTimeout)
		}
	}
}

func (a *Adapter) write(ctx context.Context, conn *websocket.Conn, op int, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode op %d: %w", op, err)
	}
	frame, err := json.Marshal(payload{Op: op, Body: b})
	if err != nil {
		return fmt.Errorf("encode op %d: %w", op, err)
	}
	wctx, cancel := context.WithTimeout(ctx, a.cfg.HTTPTimeout)
	defer cancel()
	return conn.Write(wctx, websocket.MessageText, frame)
}

func (a *Adapter) read(ctx context.Context, conn *websocket.Conn) (payload, error) {
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			return payload{}, err
		}
		var p payload
		if err := json.Unmarshal(data, &p); err != nil {
			a.log.Warn("unreadable signal ignored", zap.Error(err), zap.Int("bytes", len(data)))
			continue
		}
		return p, nil
	}
}

func (a *Adapter) onReady(ctx context.Context, body []byte) error {
	var rb readyBody
	if err := json.Unmarshal(body, &rb); err != nil {
		return fmt.Errorf("decode READY: %w", err)
	}
	var ls []login
	for _, wl := range rb.Logins {
		l := login{Platform: wl.Platform, SelfID: wl.selfID()}
		if wl.User != nil {
			l.Name = displayName(nil, wl.User)
		}
		if wl.Status != nil {
			l.Status = *wl.Status
		}
		if l.Platform == "" && l.SelfID == "" {
			continue
		}
		a.log.Info("login joined", zap.String("platform", l.Platform), zap.String("self_id", l.SelfID),
			zap.String("name", l.Name), zap.Int("status", l.Status))
		ls = append(ls, l)
	}
	if len(ls) == 0 {
		a.log.Warn("READY lists no logins; replies are impossible until a bot logs in")
	}
	a.setLogins(ls)
	// Stored before Ready, so that other replicas can send once this one is.
	a.saveLogins(ctx)
	a.readyOnce.Do(func() { close(a.ready) })
	return nil
}

// skipUnreadable logs an event that could not be decoded and moves the
// sequence past it when its number can be read: receiving it again after
// a resume could not make it readable.
func (a *Adapter) skipUnreadable(ctx context.Context, body []byte, err error) {
	var head struct {
		SN   flexInt         `json:"sn"`
		ID   flexInt         `json:"id"`
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(body, &head) != nil {
		a.log.Error("skipping an unreadable event without a readable sequence number", zap.Error(err))
		return
	}
	ev := wireEvent{SN: head.SN, ID: head.ID}
	n, ok := ev.seq()
	if !ok {
		a.log.Error("skipping an unreadable event without a sequence number", zap.ByteString("type", head.Type), zap.Error(err))
		return
	}
	a.log.Error("skipping an unreadable event", zap.Int64("sn", n), zap.ByteString("type", head.Type), zap.Error(err))
	a.advance(ctx, n)
}

// onEvent handles one EVENT. It returns an error only when the event could
// not be stored; the connection is then dropped so that the event is
// received again after resuming.
func (a *Adapter) onEvent(ctx context.Context, inbox adapters.Inbox, body []byte) error {
	var ev wireEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		a.skipUnreadable(ctx, body, err)
		return nil
	}
	n, hasSeq := ev.seq()
	log := a.log.With(zap.String("type", ev.Type), zap.Int64("sn", n))
	switch ev.Type {
	case "message-created", "message":
		ch, msg, err := a.convert(&ev, a.cfg.Now())
		if err != nil {
			log.Warn("message event ignored", zap.Error(err))
			break
		}
		if err := inbox.Deliver(ctx, ch, msg); err != nil {
			return fmt.Errorf("%w %s in %s: %w", errDeliver, msg.PlatformID, ch.ID, err)
		}
		log.Debug("message delivered", zap.String("channel", ch.ID), zap.String("id", msg.PlatformID), zap.Bool("self", msg.Self))
	case "message-updated", "message-deleted":
		ch, msg, err := a.convertChange(&ev, a.cfg.Now())
		if err != nil {
			log.Warn("message change ignored", zap.Error(err))
			break
		}
		if err := inbox.Deliver(ctx, ch, msg); err != nil {
			return fmt.Errorf("%w %s of %s in %s: %w", errDeliver, ev.Type, msg.PlatformID, ch.ID, err)
		}
		log.Debug("message change delivered", zap.String("channel", ch.ID), zap.String("id", msg.PlatformID))
	case "reaction-added", "reaction-removed":
		if err := a.handleReaction(ctx, inbox, &ev); err != nil {
			return err
		}
	case "login-added", "login-updated":
		if ev.Login != nil {
			p, id := ev.bot()
			a.addLogin(login{Platform: p, SelfID: id})
		}
		log.Debug("login event")
		// Login events do not take part in resuming.
		return nil
	default:
		log.Debug("event ignored")
	}
	if hasSeq {
		a.advance(ctx, n)
	}
	return nil
}
