package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/airi-go/airi/state"
)

// memo keeps in memory what the channel loops read on every tick, so
// that most of a tick's reads cost no statement: every channel's unread
// count, action-record count and operator control (loaded at Open), and
// for the channels ticked lately a view of their messages (their unread
// messages, the newest of their history, its size, their last id). It
// also knows whether any memory note is stored.
//
// The store's own writes keep it current: each is applied to it right
// after its commit, under mu, in the order the commits were made
// (Store.wmu). Writes of other processes are noticed and the memo is
// loaded again (see foreign); a store opened read only keeps no memo. A
// view is read from the database outside mu: a fill registers before its
// read, every commit applied meanwhile that touches the channel spoils
// it, and a spoiled fill is not kept (the read it made is still
// answered).
type memo struct {
	mu sync.Mutex
	on bool

	unread   map[string]int // unread messages per channel, the channels with none left out
	actions  map[string]int // action records per channel, the channels with none left out
	controls map[string]state.ChannelControl
	// notes is whether any note is stored. A note deleted by this store
	// leaves it set until the next load: a stale yes costs a read of the
	// notes, which finds none, while a stale no would hide a note.
	notes bool

	views map[string]*view
	held  int // the messages the views hold
	fills map[string]*viewFill

	// dataVersion is the writer's PRAGMA data_version at the last check
	// for other writers, checked its time (see foreign). A check that
	// finds a change turns the memo off until it is loaded again.
	dataVersion int64
	checked     time.Time
}

// maxViewMessages bounds the messages the views hold in all (about half
// a megabyte; a burst of a thousand chats fits): past it, views of other
// channels are dropped. maxViewUnread
// bounds the unread messages of one view: a channel with more is read
// from the database every time.
const (
	maxViewMessages = 2048
	maxViewUnread   = 64
	// viewHistory is how many history messages a fill reads at least
	// (the prompt's default window); a larger History limit reads more.
	viewHistory = 20
	// maxViewHistory bounds the history messages a view keeps.
	maxViewHistory = 200
)

// view is what the memo keeps of one channel's messages.
type view struct {
	unread []state.Message // every unread message, oldest first
	hist   []state.Message // the newest history messages, oldest first
	total  int             // the size of the whole history: hist is all of it when equal
	last   int64           // the highest message id
}

// size is the number of messages v holds.
func (v *view) size() int { return len(v.unread) + len(v.hist) }

// addHistory adds msg, read, to the channel's history, keeping the newest
// maxViewHistory messages of it.
func (v *view) addHistory(msg state.Message) {
	v.total++
	v.hist = insertByID(v.hist, msg)
	if len(v.hist) > maxViewHistory {
		v.hist = slices.Delete(v.hist, 0, len(v.hist)-maxViewHistory)
	}
}

// holdsHistory reports whether v holds the newest n messages of the
// channel's history (n <= 0: all of it).
func (v *view) holdsHistory(n int) bool {
	return n > 0 && n <= len(v.hist) || len(v.hist) >= v.total
}

// viewFill is a view being read from the database.
type viewFill struct{ spoiled bool }

// touch spoils a fill of channel id in progress. mu is held.
func (m *memo) touch(id string) {
	if f := m.fills[id]; f != nil {
		f.spoiled = true
	}
}

// forget drops what the memo keeps of channel id's messages. mu is held.
func (m *memo) forget(id string) {
	m.touch(id)
	m.drop(id)
}

// drop drops channel id's view. mu is held.
func (m *memo) drop(id string) {
	if v := m.views[id]; v != nil {
		m.held -= v.size()
		delete(m.views, id)
	}
}

// cleared applies the end of channel id's unread messages and action
// records (an operator's reset, a forgotten channel). mu is held.
func (m *memo) cleared(id string) {
	delete(m.unread, id)
	m.setActions(id, 0)
	m.forget(id)
}

// forgetAll drops every view and spoils every fill. mu is held.
func (m *memo) forgetAll() {
	for _, f := range m.fills {
		f.spoiled = true
	}
	clear(m.views)
	m.held = 0
}

// stored applies a message stored by this store (new, not a duplicate).
// first tells that the message is the first of its channel, which the
// same commit created: the channel's view is then known without a read.
// mu is held.
func (m *memo) stored(msg state.Message, first bool) {
	if !m.on {
		return
	}
	m.touch(msg.ChannelID)
	if !msg.Read {
		m.unread[msg.ChannelID]++
	}
	v := m.views[msg.ChannelID]
	if v == nil {
		if !first {
			return
		}
		v = &view{}
		m.keep(msg.ChannelID, v)
	}
	if !msg.Read && len(v.unread) >= maxViewUnread {
		m.drop(msg.ChannelID)
		return
	}
	n := v.size()
	if msg.ID > v.last {
		v.last = msg.ID
	}
	if !msg.Read {
		v.unread = insertByID(v.unread, msg)
	} else {
		v.addHistory(msg)
	}
	m.grown(msg.ChannelID, v.size()-n)
}

// markedRead applies messages this store marked read: ids by channel.
// mu is held.
func (m *memo) markedRead(byChannel map[string][]int64) {
	if !m.on {
		return
	}
	for id, ids := range byChannel {
		m.touch(id)
		if n := m.unread[id] - len(ids); n > 0 {
			m.unread[id] = n
		} else {
			delete(m.unread, id)
		}
		v := m.views[id]
		if v == nil {
			continue
		}
		n := v.size()
		for _, mid := range ids {
			i := slices.IndexFunc(v.unread, func(u state.Message) bool { return u.ID == mid })
			if i < 0 {
				// Not what the view holds: read it again when asked.
				m.held += v.size() - n
				m.drop(id)
				v = nil
				break
			}
			msg := v.unread[i]
			msg.Read = true
			v.unread = slices.Delete(v.unread, i, i+1)
			v.addHistory(msg)
		}
		if v != nil {
			m.grown(id, v.size()-n)
		}
	}
}

// decided applies a decision recorded on messages: ids by channel. mu is
// held.
func (m *memo) decided(byChannel map[string][]int64, decision string) {
	if !m.on {
		return
	}
	for id, ids := range byChannel {
		m.touch(id)
		v := m.views[id]
		if v == nil {
			continue
		}
		for _, mid := range ids {
			for _, list := range [][]state.Message{v.unread, v.hist} {
				if i := slices.IndexFunc(list, func(u state.Message) bool { return u.ID == mid }); i >= 0 {
					list[i].Decision = decision
				}
			}
		}
	}
}

// insertByID inserts msg into list, kept in id order.
func insertByID(list []state.Message, msg state.Message) []state.Message {
	i := len(list)
	for i > 0 && list[i-1].ID > msg.ID {
		i--
	}
	if i > 0 && list[i-1].ID == msg.ID {
		list[i-1] = msg
		return list
	}
	return slices.Insert(list, i, msg)
}

// unreadCount returns channel id's unread count; ok is false when the
// memo is off.
func (m *memo) unreadCount(id string) (n int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.unread[id], m.on
}

// unreadCounts returns a copy of the unread counts; ok is false when the
// memo is off.
func (m *memo) unreadCounts() (map[string]int, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.on {
		return nil, false
	}
	return maps.Clone(m.unread), true
}

// control returns channel id's control; ok is false when the memo is off.
func (m *memo) control(id string) (state.ChannelControl, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, found := m.controls[id]
	if !found {
		c = state.ChannelControl{ChannelID: id}
	}
	return c, m.on
}

// hasNotes returns whether any note is stored (see notes); ok is false
// when the memo is off.
func (m *memo) hasNotes() (has, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.notes, m.on
}

// actionCount returns how many action records channel id has; ok is
// false when the memo is off.
func (m *memo) actionCount(id string) (n int, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.actions[id], m.on
}

// setActions applies a change of channel id's action records: n are left.
// mu is held.
func (m *memo) setActions(id string, n int) {
	if !m.on {
		return
	}
	if n > 0 {
		m.actions[id] = n
	} else {
		delete(m.actions, id)
	}
}

// setControl applies a control this store stored. mu is held.
func (m *memo) setControl(c state.ChannelControl) {
	if m.on {
		m.controls[c.ChannelID] = c
	}
}

// withView calls fn with channel id's view, when the memo has one, and
// reports whether it did. fn runs under mu and must not keep the view.
func (m *memo) withView(id string, fn func(v *view)) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.views[id]
	if v == nil {
		return false
	}
	fn(v)
	return true
}

// startFill registers a fill of channel id's view, reading hist history
// messages; false means none is to be made (the memo is off, the channel
// has too many unread messages, or another fill runs).
func (m *memo) startFill(id string) (*viewFill, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.on || m.unread[id] > maxViewUnread || m.fills[id] != nil {
		return nil, false
	}
	f := &viewFill{}
	m.fills[id] = f
	return f, true
}

// endFill keeps v as channel id's view unless a commit spoiled the fill
// or v is not whole (more unread messages than read).
func (m *memo) endFill(id string, f *viewFill, v *view, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fills[id] == f {
		delete(m.fills, id)
	}
	if !ok || f.spoiled || !m.on {
		return
	}
	m.keep(id, v)
}

// keep keeps v as channel id's view. mu is held.
func (m *memo) keep(id string, v *view) {
	m.drop(id)
	m.views[id] = v
	m.grown(id, v.size())
}

// grown notes that channel id's view holds n more messages, and drops
// views of other channels while the views hold more than
// maxViewMessages. mu is held.
func (m *memo) grown(id string, n int) {
	m.held += n
	for k := range m.views {
		if m.held <= maxViewMessages {
			break
		}
		if k != id {
			// Any channel goes: views are cheap to read again.
			m.drop(k)
		}
	}
}

// tail returns copies of the last n messages of list (all when n <= 0 or
// fewer), and head those of the first n.
func tail(list []state.Message, n int) []state.Message {
	if n <= 0 || n > len(list) {
		n = len(list)
	}
	if n == 0 {
		return nil // as a read of no rows
	}
	return slices.Clone(list[len(list)-n:])
}

func head(list []state.Message, n int) []state.Message {
	if n <= 0 || n > len(list) {
		n = len(list)
	}
	if n == 0 {
		return nil
	}
	return slices.Clone(list[:n])
}

// viewSQL reads a channel's view in one statement: its unread messages
// (up to ?2) and its newest history messages (up to ?3, with the size of
// the whole history), the unread ones first.
const viewSQL = `SELECT * FROM (SELECT ` + messageCols + `, 0 FROM messages
	WHERE channel_id = ?1 AND read = 0 ORDER BY id LIMIT +?2)
UNION ALL
SELECT * FROM (SELECT ` + messageCols + `, coalesce((SELECT n FROM history_counts WHERE channel_id = ?1), 0) FROM messages
	WHERE channel_id = ?1 AND read = 1 AND deleted = 0 ORDER BY id DESC LIMIT +?3)`

// inView answers a read of channel id's messages from the memo: answer
// is called with the channel's view, read from the database first (with
// at least hist history messages) when the memo has none, and reports
// whether the view could answer. ok is false when the caller must ask
// the database itself: the memo is off, the channel is not one a view is
// kept of, or answer could not answer.
func (s *Store) inView(ctx context.Context, id string, hist int, answer func(v *view) bool) (ok bool, err error) {
	s.fresh(ctx)
	answered := false
	if s.memo.withView(id, func(v *view) { answered = answer(v) }) {
		return answered, nil
	}
	f, ok := s.memo.startFill(id)
	if !ok {
		return false, nil
	}
	hist = min(max(hist, viewHistory), maxViewHistory)
	v, whole, err := s.readView(ctx, id, hist)
	if err != nil || !whole {
		s.memo.endFill(id, f, v, false)
		return false, err
	}
	// The view answers even if a commit spoiled it: it is what the
	// database held when it was read. It answers before it is kept, from
	// when on commits change it under mu.
	answered = answer(v)
	s.memo.endFill(id, f, v, true)
	return answered, nil
}

// readView reads channel id's view with up to hist history messages;
// whole is false when the channel has more unread messages than a view
// keeps.
func (s *Store) readView(ctx context.Context, id string, hist int) (v *view, whole bool, err error) {
	v = &view{}
	rows, err := s.queryShort(ctx, viewSQL, id, maxViewUnread+1, hist)
	if err != nil {
		return nil, false, fmt.Errorf("read messages of %q: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var total int
		m, err := scanMessageAnd(rows, &total)
		if err != nil {
			return nil, false, fmt.Errorf("read messages of %q: %w", id, err)
		}
		if !m.Read {
			v.unread = append(v.unread, m)
		} else {
			v.hist = append(v.hist, m)
			v.total = total
		}
		v.last = max(v.last, m.ID)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("read messages of %q: %w", id, err)
	}
	slices.Reverse(v.hist)
	return v, len(v.unread) <= maxViewUnread, nil
}

// loadMemo reads what the memo keeps of every channel and turns it on.
// The writer's data_version is read first: another process's write
// after it is found by the first commit's check.
func (s *Store) loadMemo(ctx context.Context) error {
	var v int64
	if err := s.writer.QueryRowContext(ctx, dataVersionSQL).Scan(&v); err != nil {
		return fmt.Errorf("check for other writers: %w", err)
	}
	l, err := readMemoLoad(ctx, s.reader)
	if err != nil {
		return fmt.Errorf("load what ticks read: %w", err)
	}
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	s.memo.dataVersion, s.memo.checked = v, time.Now()
	s.memo.install(l)
	return nil
}

// bulk runs an operation's write transaction fn, which may change any
// channel's messages, and then after with the memo's lock held, before
// any later commit (wmu). When fn fails nothing was stored.
func (s *Store) bulk(ctx context.Context, fn func(tx *sql.Tx) error, after func(m *memo)) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.write(ctx, fn); err != nil {
		return err
	}
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	after(&s.memo)
	return nil
}

// Other writers. `airi channel pause|resume|reset` and `airi forget`
// write a SQLite database beside the running bot, without its lock. The
// writer connection's PRAGMA data_version changes only when another
// connection commits, and the store's other connections never write, so
// a change means another process wrote. It is read after every commit of
// a transaction of the store, with wmu still held, and when it changed
// the memo is loaded again: what is loaded holds the commit, and no other
// commit of the store is applied before the load is installed. A read the
// memo would answer when nothing checked for the last maxUnchecked first
// checks: another process's write is seen within that time during
// traffic, and at once when the store is idle. A write of another process
// between a check and the next commit is found by the check after it.
const maxUnchecked = 5 * time.Millisecond

// dataVersionSQL reads the writer connection's data version.
const dataVersionSQL = `PRAGMA data_version`

// memoLoad is what the memo is loaded with.
type memoLoad struct {
	unread, actions map[string]int
	controls        map[string]state.ChannelControl
	notes           bool
}

// checkOthers finds out whether another process wrote since the last
// check and if so (or if the memo is off, waiting for a load) loads the
// memo again. wmu is held. When the check or the load fails, the memo is
// off: reads ask the database until a later check loads it.
func (s *Store) checkOthers(ctx context.Context) {
	load, err := s.foreign(ctx)
	if err != nil {
		s.memo.mu.Lock()
		s.memo.on = false
		s.memo.forgetAll()
		s.memo.mu.Unlock()
		s.logger.Warn("reads go to the database until it can be checked for other writers", zap.Error(err))
		return
	}
	if load != nil {
		s.reloaded(load)
	}
}

// foreign reads whether another process wrote since the last check, and
// if so (or if the memo is off, waiting for a load) what to load the memo
// with. wmu is held, mu of the memo is not.
func (s *Store) foreign(ctx context.Context) (*memoLoad, error) {
	st, err := s.prepare(ctx, s.writer, dataVersionSQL)
	if err != nil {
		return nil, fmt.Errorf("check for other writers: %w", err)
	}
	var v int64
	if err := st.QueryRowContext(ctx).Scan(&v); err != nil {
		return nil, fmt.Errorf("check for other writers: %w", err)
	}
	m := &s.memo
	m.mu.Lock()
	changed := v != m.dataVersion || !m.on
	m.dataVersion, m.checked = v, time.Now()
	if changed {
		// Until the load, reads ask the database.
		m.on = false
		m.forgetAll()
	}
	m.mu.Unlock()
	if !changed {
		return nil, nil
	}
	load, err := readMemoLoad(ctx, s.writer)
	if err != nil {
		return nil, fmt.Errorf("reload after another process wrote: %w", err)
	}
	return load, nil
}

// readMemoLoad reads the counts and controls the memo keeps.
func readMemoLoad(ctx context.Context, q interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (*memoLoad, error) {
	var (
		l   memoLoad
		err error
	)
	rows, err := q.QueryContext(ctx, unreadCountsSQL)
	if err == nil {
		l.unread, err = scanCounts(rows)
	}
	if err == nil {
		rows, err = q.QueryContext(ctx, `SELECT channel_id, count(*) FROM actions GROUP BY channel_id`)
	}
	if err == nil {
		l.actions, err = scanCounts(rows)
	}
	if err == nil {
		var list []state.ChannelControl
		list, err = collect(scanControl)(q.QueryContext(ctx, `SELECT channel_id, paused, paused_until, mode FROM channel_controls`))
		l.controls = make(map[string]state.ChannelControl, len(list))
		for _, c := range list {
			l.controls[c.ChannelID] = c
		}
	}
	if err == nil {
		err = q.QueryRowContext(ctx, hasNotesSQL).Scan(&l.notes)
	}
	return &l, err
}

// reloaded loads the memo with l, read in a committed transaction.
func (s *Store) reloaded(l *memoLoad) {
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	s.memo.install(l)
}

// install loads the memo with l, drops its views and turns it on. mu is
// held.
func (m *memo) install(l *memoLoad) {
	m.unread, m.actions, m.controls, m.notes = l.unread, l.actions, l.controls, l.notes
	if m.views == nil {
		m.views, m.fills = map[string]*view{}, map[string]*viewFill{}
	}
	m.forgetAll()
	m.on = true
}

// memoOff reports whether the memo waits for a load: a check found
// another process's write and the load failed.
func (s *Store) memoOff() bool {
	s.memo.mu.Lock()
	defer s.memo.mu.Unlock()
	return !s.memo.on
}

// fresh makes sure the store checked for other writers within the last
// maxUnchecked before the memo answers a read.
func (s *Store) fresh(ctx context.Context) {
	s.memo.mu.Lock()
	ok := !s.memo.on || time.Since(s.memo.checked) < maxUnchecked
	s.memo.mu.Unlock()
	if ok {
		return
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.checkOthers(context.WithoutCancel(ctx))
}
