package scheduler

import (
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// chat is the log field of a channel: its id, and its title once the
// scheduler knows it, so that an operator reading the log sees which chat
// a line is about. The title comes from the title cache, never from the
// store: logging costs no lookup.
func (s *Scheduler) chat(id string) zap.Field {
	title, _ := s.titles.get(id)
	return zap.Inline(chatField{id: id, title: title})
}

type chatField struct{ id, title string }

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (c chatField) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("channel", c.id)
	if c.title != "" {
		enc.AddString("title", c.title)
	}
	return nil
}
