package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/airi-go/airi/state"
)

const noteCols = `id, scope, subject, name, text, shareable, created, updated, used, tick`

// noteOrder is the order of state.NoteStore.Notes.
const noteOrder = ` ORDER BY CASE scope WHEN 'global' THEN 0 WHEN 'channel' THEN 1 ELSE 2 END, subject, id`

func scanNote(sc scanner) (state.Note, error) {
	var (
		n                      state.Note
		scope                  string
		created, updated, used int64
	)
	err := sc.Scan(&n.ID, &scope, &n.Subject, &n.Name, &n.Text, &n.Shareable, &created, &updated, &used, &n.Tick)
	n.Scope = state.NoteScope(scope)
	n.Created, n.Updated, n.Used = decTime(created), decTime(updated), decTime(used)
	return n, err
}

// SaveNote stores a new note or replaces one, then evicts the least
// recently used notes of its scope and subject beyond lim, in one
// transaction.
func (s *Store) SaveNote(ctx context.Context, n state.Note, lim state.NoteLimits) (state.Note, []state.Note, error) {
	n, err := n.Prepared(s.Now())
	if err != nil {
		return state.Note{}, nil, fmt.Errorf("save note: %w", err)
	}
	n.Created, n.Updated, n.Used = normTime(n.Created), normTime(n.Updated), normTime(n.Used)
	var evicted []state.Note
	err = s.bulk(ctx, func(tx *sql.Tx) error {
		if n.ID == 0 {
			err := tx.QueryRowContext(ctx, `
INSERT INTO notes (scope, subject, name, text, shareable, created, updated, used, tick)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				string(n.Scope), n.Subject, n.Name, n.Text, boolInt(n.Shareable), encTime(n.Created), encTime(n.Updated), encTime(n.Used), n.Tick,
			).Scan(&n.ID)
			if err != nil {
				return err
			}
		} else {
			old, err := scanNote(tx.QueryRowContext(ctx, `SELECT `+noteCols+` FROM notes WHERE id = ?`, n.ID))
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("note %d: %w", n.ID, state.ErrNotFound)
			}
			if err != nil {
				return err
			}
			n.Scope, n.Subject, n.Created, n.Used = old.Scope, old.Subject, old.Created, old.Used
			if _, err := tx.ExecContext(ctx, `UPDATE notes SET name = ?, text = ?, shareable = ?, updated = ?, tick = ? WHERE id = ?`,
				n.Name, n.Text, boolInt(n.Shareable), encTime(n.Updated), n.Tick, n.ID); err != nil {
				return err
			}
		}
		same, err := collect(scanNote)(tx.QueryContext(ctx, `SELECT `+noteCols+` FROM notes WHERE scope = ? AND subject = ? ORDER BY id`,
			string(n.Scope), n.Subject))
		if err != nil {
			return err
		}
		evicted = lim.Evictions(same, n.ID)
		for _, e := range evicted {
			if _, err := tx.ExecContext(ctx, `DELETE FROM notes WHERE id = ?`, e.ID); err != nil {
				return err
			}
		}
		return nil
	}, func(m *memo) { m.notes = true })
	if err != nil {
		return state.Note{}, nil, fmt.Errorf("save note: %w", err)
	}
	return n, evicted, nil
}

// Note returns one note, or state.ErrNotFound.
func (s *Store) Note(ctx context.Context, id int64) (state.Note, error) {
	n, err := scanNote(s.row(ctx, `SELECT `+noteCols+` FROM notes WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return state.Note{}, fmt.Errorf("note %d: %w", id, state.ErrNotFound)
	}
	if err != nil {
		return state.Note{}, fmt.Errorf("note %d: %w", id, err)
	}
	return n, nil
}

// Notes returns the notes f selects in the documented order. A view is
// answered with one query over the candidate scopes and subjects.
func (s *Store) Notes(ctx context.Context, f state.NoteFilter) ([]state.Note, error) {
	var (
		where []string
		args  []any
	)
	if f.Scope != "" {
		where = append(where, "scope = ?")
		args = append(args, string(f.Scope))
	}
	if f.Subject != "" {
		where = append(where, "subject = ?")
		args = append(args, f.Subject)
	}
	if v := f.View; v != nil {
		people := append([]string{v.Person}, v.Shared...)
		list, err := json.Marshal(people)
		if err != nil {
			return nil, fmt.Errorf("notes: %w", err)
		}
		where = append(where, `(scope = 'global' OR (scope = 'channel' AND subject = ?)
	OR (scope = 'user' AND subject IN (SELECT value FROM json_each(?))))`)
		args = append(args, v.Channel, string(list))
	}
	q := `SELECT ` + noteCols + ` FROM notes`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	out, err := collect(scanNote)(s.queryShort(ctx, q+noteOrder, args...))
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	if f.View != nil {
		kept := out[:0]
		for _, n := range out {
			if f.View.Sees(n) {
				kept = append(kept, n)
			}
		}
		out = kept
	}
	return out, nil
}

// HasNotes reports whether any note is stored, which spares a channel
// the Notes query while none is. The memo answers it: a note another
// process saved counts within maxUnchecked, as every write of another
// process does.
func (s *Store) HasNotes(ctx context.Context) (bool, error) {
	s.fresh(ctx)
	if has, ok := s.memo.hasNotes(); ok {
		return has, nil
	}
	var has bool
	if err := s.row(ctx, hasNotesSQL).Scan(&has); err != nil {
		return false, fmt.Errorf("look for notes: %w", err)
	}
	return has, nil
}

const hasNotesSQL = `SELECT EXISTS (SELECT 1 FROM notes)`

// DeleteNote deletes one note.
func (s *Store) DeleteNote(ctx context.Context, id int64) error {
	res, err := s.exec(ctx, `DELETE FROM notes WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("delete note %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("delete note %d: %w", id, state.ErrNotFound)
	}
	return nil
}

// TouchNotes records that the notes were shown at time at.
func (s *Store) TouchNotes(ctx context.Context, ids []int64, at time.Time) error {
	return s.setNotes(ctx, "touch notes", `UPDATE notes SET used = ? WHERE id IN (SELECT value FROM json_each(?))`, encTime(at), ids)
}

// SetNoteTick records the tick that wrote the notes.
func (s *Store) SetNoteTick(ctx context.Context, ids []int64, tick int64) error {
	return s.setNotes(ctx, "set note tick", `UPDATE notes SET tick = ? WHERE id IN (SELECT value FROM json_each(?))`, tick, ids)
}

func (s *Store) setNotes(ctx context.Context, what, query string, v any, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := s.exec(ctx, query, v, string(list)); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ForgetUser deletes the person's notes, their messages everywhere, and
// the whole record of the direct chats only they wrote in, in one
// transaction.
func (s *Store) ForgetUser(ctx context.Context, userID string) (state.Forgotten, error) {
	var out state.Forgotten
	if strings.TrimSpace(userID) == "" {
		return out, errors.New("forget user: empty user id")
	}
	var load *memoLoad
	err := s.erase(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `
SELECT c.id FROM channels c
WHERE c.grp = 0
	AND EXISTS (SELECT 1 FROM messages m WHERE m.channel_id = c.id AND m.sender_id = ? AND m.self = 0)
	AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.channel_id = c.id AND m.sender_id <> ? AND m.self = 0)
ORDER BY c.id`, userID, userID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			out.Channels = append(out.Channels, id)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := scrubShown(ctx, tx, userID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM notes WHERE scope = 'user' AND subject = ?`, userID)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		out.Notes = int(n)
		if _, err := tx.ExecContext(ctx, `DELETE FROM reactions WHERE sender_id = ?`, userID); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, `DELETE FROM messages WHERE sender_id = ? AND self = 0`, userID)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		out.Messages = int(n)
		// A reminder the person asked for holds their words.
		if _, err := tx.ExecContext(ctx, `DELETE FROM reminders WHERE created_by = ?`, userID); err != nil {
			return err
		}
		for _, ch := range out.Channels {
			for _, q := range []string{
				`DELETE FROM messages WHERE channel_id = ?`,
				`DELETE FROM actions WHERE channel_id = ?`,
				`DELETE FROM ticks WHERE channel_id = ?`,
				`DELETE FROM outbox WHERE channel_id = ?`,
				`DELETE FROM reactions WHERE channel_id = ?`,
				`DELETE FROM reminders WHERE channel_id = ?`,
				`DELETE FROM notes WHERE scope = 'channel' AND subject = ?`,
			} {
				if _, err := tx.ExecContext(ctx, q, ch); err != nil {
					return err
				}
			}
		}
		// Messages of any channel may have gone: the memo is read again.
		load, err = readMemoLoad(ctx, tx)
		return err
	}, func(m *memo) { m.install(load) })
	if err != nil {
		return state.Forgotten{}, fmt.Errorf("forget user %q: %w", userID, err)
	}
	return out, nil
}

// scrubShown replaces the text of the person's messages in the recorded
// requests and action results of the chats they wrote in (groups keep
// their ticks): what was shown of them leaves the file with them.
func scrubShown(ctx context.Context, tx *sql.Tx, userID string) error {
	rows, err := tx.QueryContext(ctx, `SELECT channel_id, content FROM messages WHERE sender_id = ? AND self = 0 AND length(content) >= 4`, userID)
	if err != nil {
		return err
	}
	type shown struct{ channel, content string }
	var all []shown
	for rows.Next() {
		var m shown
		if err := rows.Scan(&m.channel, &m.content); err != nil {
			rows.Close()
			return err
		}
		all = append(all, m)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, m := range all {
		for _, form := range state.StoredForms(m.content) {
			if _, err := tx.ExecContext(ctx, `UPDATE ticks SET request = replace(request, ?1, '[forgotten]')
WHERE channel_id = ?2 AND instr(request, ?1) > 0`, form, m.channel); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `UPDATE actions SET result = replace(result, ?1, '[forgotten]')
WHERE channel_id = ?2 AND instr(result, ?1) > 0`, form, m.channel); err != nil {
				return err
			}
		}
	}
	return nil
}
