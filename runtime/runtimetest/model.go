// Package runtimetest holds what tests of the whole bot share: a model
// that answers from per-channel queues and keeps every request it was
// given, so that a test drives runtime.New without an HTTP fake.
package runtimetest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/airi-go/airi/planner"
	"github.com/airi-go/airi/state"
)

// Model answers each channel's requests from the answers queued for it,
// else with a send of "ok N" to that channel, and keeps every request by
// channel. The zero value is ready to use.
type Model struct {
	mu     sync.Mutex
	queued map[string][]string
	reqs   map[string][][]state.ChatMessage
	n      int
}

var _ planner.Model = (*Model)(nil)

// Complete implements planner.Model.
func (m *Model) Complete(_ context.Context, req planner.Request) (planner.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reqs == nil {
		m.reqs = map[string][][]state.ChatMessage{}
	}
	m.reqs[req.ChannelID] = append(m.reqs[req.ChannelID], req.Messages)
	m.n++
	answer := SendAnswer(req.ChannelID, fmt.Sprintf("ok %d", m.n))
	if q := m.queued[req.ChannelID]; len(q) > 0 {
		answer, m.queued[req.ChannelID] = q[0], q[1:]
	}
	return planner.Response{Content: answer, Attempts: 1}, nil
}

// Queue adds answers for the channel's next requests.
func (m *Model) Queue(ch string, answers ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queued == nil {
		m.queued = map[string][]string{}
	}
	m.queued[ch] = append(m.queued[ch], answers...)
}

// Requests returns the requests of a channel so far.
func (m *Model) Requests(ch string) [][]state.ChatMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]state.ChatMessage(nil), m.reqs[ch]...)
}

// Last is the text of the channel's last request (JoinRequest); the test
// fails when there was none.
func (m *Model) Last(t testing.TB, ch string) string {
	t.Helper()
	rs := m.Requests(ch)
	if len(rs) == 0 {
		t.Fatalf("no request for %s", ch)
	}
	return JoinRequest(rs[len(rs)-1])
}

// JoinRequest is the contents of a request's messages, one after another.
func JoinRequest(msgs []state.ChatMessage) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

// SendAnswer is the model's answer that sends content to channel ch.
func SendAnswer(ch, content string) string {
	return fmt.Sprintf(`{"action":"send_message","channelId":%q,"content":%q}`, ch, content)
}

// Contains checks that req contains each of parts (want) or none of them.
func Contains(t testing.TB, what, req string, want bool, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(req, p) != want {
			t.Errorf("%s: contains %q = %v, want %v", what, p, !want, want)
		}
	}
}
