package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/airi-go/airi/state"
)

const noteCols = `id, scope, subject, name, text, shareable, created, updated, used, tick`

// noteOrder is the order of state.NoteStore.Notes.
const noteOrder = ` ORDER BY CASE scope WHEN 'global' THEN 0 WHEN 'channel' THEN 1 ELSE 2 END, subject COLLATE "C", id`

func scanNote(sc pgx.Row) (state.Note, error) {
	var (
		n                state.Note
		scope            string
		created, updated time.Time
		used             *time.Time
	)
	err := sc.Scan(&n.ID, &scope, &n.Subject, &n.Name, &n.Text, &n.Shareable, &created, &updated, &used, &n.Tick)
	n.Scope = state.NoteScope(scope)
	n.Created, n.Updated, n.Used = created.UTC(), updated.UTC(), decTS(used)
	return n, err
}

// SaveNote stores a new note or replaces one, then evicts the least
// recently used notes of its scope and subject beyond lim, in one
// transaction that locks the subject's notes against a concurrent save.
func (s *Store) SaveNote(ctx context.Context, n state.Note, lim state.NoteLimits) (state.Note, []state.Note, error) {
	n, err := n.Prepared(s.Now())
	if err != nil {
		return state.Note{}, nil, fmt.Errorf("save note: %w", err)
	}
	n.Created, n.Updated, n.Used = normTime(n.Created), normTime(n.Updated), normTime(n.Used)
	var evicted []state.Note
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if n.ID == 0 {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('airi-notes'), hashtext($1 || ':' || $2))`, string(n.Scope), n.Subject); err != nil {
				return err
			}
			err := tx.QueryRow(ctx, `
INSERT INTO notes (scope, subject, name, text, shareable, created, updated, used, tick)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
				string(n.Scope), n.Subject, n.Name, n.Text, n.Shareable, n.Created, n.Updated, tsArg(n.Used), n.Tick,
			).Scan(&n.ID)
			if err != nil {
				return err
			}
		} else {
			old, err := scanNote(tx.QueryRow(ctx, `SELECT `+noteCols+` FROM notes WHERE id = $1`, n.ID))
			if errors.Is(err, pgx.ErrNoRows) {
				return fmt.Errorf("note %d: %w", n.ID, state.ErrNotFound)
			}
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('airi-notes'), hashtext($1 || ':' || $2))`, string(old.Scope), old.Subject); err != nil {
				return err
			}
			n.Scope, n.Subject, n.Created, n.Used = old.Scope, old.Subject, old.Created, old.Used
			tag, err := tx.Exec(ctx, `UPDATE notes SET name = $1, text = $2, shareable = $3, updated = $4, tick = $5 WHERE id = $6`,
				n.Name, n.Text, n.Shareable, n.Updated, n.Tick, n.ID)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				return fmt.Errorf("note %d: %w", n.ID, state.ErrNotFound)
			}
		}
		rows, err := tx.Query(ctx, `SELECT `+noteCols+` FROM notes WHERE scope = $1 AND subject = $2 ORDER BY id`, string(n.Scope), n.Subject)
		same, err := collect(rows, err, scanNote)
		if err != nil {
			return err
		}
		evicted = lim.Evictions(same, n.ID)
		for _, e := range evicted {
			if _, err := tx.Exec(ctx, `DELETE FROM notes WHERE id = $1`, e.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return state.Note{}, nil, fmt.Errorf("save note: %w", err)
	}
	return n, evicted, nil
}

// Note returns one note, or state.ErrNotFound.
func (s *Store) Note(ctx context.Context, id int64) (state.Note, error) {
	n, err := scanNote(s.pool.QueryRow(ctx, `SELECT `+noteCols+` FROM notes WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return state.Note{}, fmt.Errorf("note %d: %w", id, state.ErrNotFound)
	}
	if err != nil {
		return state.Note{}, fmt.Errorf("note %d: %w", id, err)
	}
	return n, nil
}

// HasNotes reports whether any note is stored, read from the database as
// it is now: a channel need not run its view's notes query while none
// exists.
func (s *Store) HasNotes(ctx context.Context) (bool, error) {
	var has bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM notes)`).Scan(&has); err != nil {
		return false, fmt.Errorf("look for notes: %w", err)
	}
	return has, nil
}

// Notes returns the notes f selects in the documented order.
func (s *Store) Notes(ctx context.Context, f state.NoteFilter) ([]state.Note, error) {
	var (
		where []string
		args  []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.Scope != "" {
		where = append(where, "scope = "+arg(string(f.Scope)))
	}
	if f.Subject != "" {
		where = append(where, "subject = "+arg(f.Subject))
	}
	if v := f.View; v != nil {
		people := append([]string{v.Person}, v.Shared...)
		where = append(where, fmt.Sprintf(`(scope = 'global' OR (scope = 'channel' AND subject = %s)
	OR (scope = 'user' AND subject = ANY(%s)))`, arg(v.Channel), arg(people)))
	}
	q := `SELECT ` + noteCols + ` FROM notes`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	rows, err := s.pool.Query(ctx, q+noteOrder, args...)
	out, err := collect(rows, err, scanNote)
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

// DeleteNote deletes one note.
func (s *Store) DeleteNote(ctx context.Context, id int64) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM notes WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete note %d: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete note %d: %w", id, state.ErrNotFound)
	}
	return nil
}

// TouchNotes records that the notes were shown at time at.
func (s *Store) TouchNotes(ctx context.Context, ids []int64, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE notes SET used = $1 WHERE id = ANY($2)`, tsArg(at), ids); err != nil {
		return fmt.Errorf("touch notes: %w", err)
	}
	return nil
}

// SetNoteTick records the tick that wrote the notes.
func (s *Store) SetNoteTick(ctx context.Context, ids []int64, tick int64) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `UPDATE notes SET tick = $1 WHERE id = ANY($2)`, tick, ids); err != nil {
		return fmt.Errorf("set note tick: %w", err)
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
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		out = state.Forgotten{}
		rows, err := tx.Query(ctx, `
SELECT c.id FROM channels c
WHERE NOT c.grp
	AND EXISTS (SELECT 1 FROM messages m WHERE m.channel_id = c.id AND m.sender_id = $1 AND NOT m.self)
	AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.channel_id = c.id AND m.sender_id <> $1 AND NOT m.self)
ORDER BY c.id COLLATE "C"`, userID)
		out.Channels, err = collect(rows, err, func(r pgx.Row) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
		if err != nil {
			return err
		}
		if err := scrubShown(ctx, tx, userID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM notes WHERE scope = 'user' AND subject = $1`, userID)
		if err != nil {
			return err
		}
		out.Notes = int(tag.RowsAffected())
		if _, err := tx.Exec(ctx, `DELETE FROM reactions WHERE sender_id = $1`, userID); err != nil {
			return err
		}
		tag, err = tx.Exec(ctx, `DELETE FROM messages WHERE sender_id = $1 AND NOT self`, userID)
		if err != nil {
			return err
		}
		out.Messages = int(tag.RowsAffected())
		// A reminder the person asked for holds their words.
		if _, err := tx.Exec(ctx, `DELETE FROM reminders WHERE created_by = $1`, userID); err != nil {
			return err
		}
		if len(out.Channels) == 0 {
			return nil
		}
		for _, q := range []string{
			`DELETE FROM messages WHERE channel_id = ANY($1)`,
			`DELETE FROM actions WHERE channel_id = ANY($1)`,
			`DELETE FROM ticks WHERE channel_id = ANY($1)`,
			`DELETE FROM outbox WHERE channel_id = ANY($1)`,
			`DELETE FROM reactions WHERE channel_id = ANY($1)`,
			`DELETE FROM reminders WHERE channel_id = ANY($1)`,
			`DELETE FROM notes WHERE scope = 'channel' AND subject = ANY($1)`,
		} {
			if _, err := tx.Exec(ctx, q, out.Channels); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return state.Forgotten{}, fmt.Errorf("forget user %q: %w", userID, err)
	}
	s.vacuumForgotten(ctx)
	return out, nil
}

// scrubShown replaces the text of the person's messages in the recorded
// requests and action results of the chats they wrote in (groups keep
// their ticks): what was shown of them goes with them.
func scrubShown(ctx context.Context, tx pgx.Tx, userID string) error {
	rows, err := tx.Query(ctx, `SELECT channel_id, content FROM messages WHERE sender_id = $1 AND NOT self AND length(content) >= 4`, userID)
	if err != nil {
		return err
	}
	type shown struct{ channel, content string }
	all, err := collect(rows, err, func(r pgx.Row) (shown, error) {
		var m shown
		return m, r.Scan(&m.channel, &m.content)
	})
	if err != nil {
		return err
	}
	for _, m := range all {
		for _, form := range state.StoredForms(m.content) {
			if _, err := tx.Exec(ctx, `UPDATE ticks SET request = replace(request, $1, '[forgotten]')
WHERE channel_id = $2 AND strpos(request, $1) > 0`, form, m.channel); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE actions SET result = replace(result, $1, '[forgotten]')
WHERE channel_id = $2 AND strpos(result, $1) > 0`, form, m.channel); err != nil {
				return err
			}
		}
	}
	return nil
}
